#include "widgets/clusters/cluster_dialog.h"

#include "models/clusters/cluster_form.h"
#include "widgets/common/field_message.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QLabel* hintLabel(const QString& text) {
    auto* l = new QLabel(text);
    l->setWordWrap(true);
    l->setForegroundRole(QPalette::PlaceholderText);
    QFont f = l->font();
    f.setPointSizeF(f.pointSizeF() * 0.92);
    l->setFont(f);
    return l;
}

QLabel* groupLabel(const QString& text) {
    auto* l = new QLabel(text);
    QFont f = l->font();
    f.setWeight(QFont::DemiBold);
    l->setFont(f);
    l->setContentsMargins(0, 8, 0, 0);
    return l;
}

} // namespace

ClusterDialog::ClusterDialog(Mode mode, std::vector<std::string> takenNames, QWidget* parent)
    : QDialog(parent)
    , m_mode(mode)
    , m_taken(std::move(takenNames)) {
    setObjectName(QStringLiteral("clusterDialog"));
    setWindowTitle(mode == Mode::Add ? tr("Add cluster") : tr("Edit cluster"));
    m_name = formLineEdit(QStringLiteral("clusterName"), tr("gpu-lab"));
    m_hosts = new QPlainTextEdit;
    m_hosts->setObjectName(QStringLiteral("clusterHosts"));
    m_hosts->setPlaceholderText(tr("studio@10.0.0.11\nstudio@10.0.0.12:2222"));
    m_hosts->setTabChangesFocus(true);
    m_hosts->setFixedHeight(m_hosts->fontMetrics().lineSpacing() * 5 + 12);
    m_identity = formLineEdit(QStringLiteral("clusterIdentity"), tr("your keys and SSH agent"));
    m_knownHosts = formLineEdit(QStringLiteral("clusterKnownHosts"), tr("~/.ssh/known_hosts"));
    m_workdir = formLineEdit(QStringLiteral("clusterWorkdir"), qs(remote::kDefaultWorkdir));
    m_installDir = formLineEdit(QStringLiteral("clusterInstallDir"), tr("on the login PATH"));
    m_rendezvous = formLineEdit(QStringLiteral("clusterRendezvous"), tr("node 0's address"));
    m_socketIfname =
        formLineEdit(QStringLiteral("clusterSocketIfname"), tr("the one that reaches node 0"));
    m_hostTimeout = new QSpinBox;
    m_hostTimeout->setObjectName(QStringLiteral("clusterHostTimeout"));
    m_hostTimeout->setRange(1, 7 * 24 * 3600);
    m_hostTimeout->setSuffix(tr(" s"));
    m_hostTimeout->setValue(static_cast<int>(remote::kDefaultHostTimeoutSeconds));
    m_hostTimeout->setMaximumWidth(140);
    m_acceptNewKeys = new QCheckBox(tr("Trust the key of a host seen for the first time"));
    m_acceptNewKeys->setObjectName(QStringLiteral("clusterAcceptNewHostKeys"));

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_save = buttons->addButton(mode == Mode::Add ? tr("Add and check") : tr("Save and check"),
                                QDialogButtonBox::AcceptRole);
    m_save->setObjectName(QStringLiteral("clusterSave"));
    m_save->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(20, 14, 20, 14);
    layout->addLayout(buildForm());
    layout->addStretch(1);
    layout->addWidget(buttons);

    for (QLineEdit* e :
         {m_name, m_identity, m_knownHosts, m_workdir, m_installDir, m_rendezvous, m_socketIfname})
        connect(e, &QLineEdit::textChanged, this, &ClusterDialog::validate);
    connect(m_hosts, &QPlainTextEdit::textChanged, this, &ClusterDialog::validate);
    connect(m_hostTimeout, &QSpinBox::valueChanged, this, &ClusterDialog::validate);
    resize(640, sizeHint().height());
    validate();
}

QFormLayout* ClusterDialog::buildForm() {
    auto* form = new QFormLayout;
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setVerticalSpacing(8);
    form->addRow(groupLabel(tr("Cluster")));
    addField(form, tr("Name"), m_name, "name", tr("Jobs run here with \"cluster\": NAME."));
    addField(form, tr("Hosts"), m_hosts, "hosts",
             tr("One [user@]host[:port] a line; node 0 runs on the first."));
    form->addRow(groupLabel(tr("SSH")));
    addField(form, tr("Identity file"), withBrowse(m_identity, tr("Private key")), "identity",
             tr("Kept as a path, never read by the studio; SSH never prompts for a password."),
             m_identity);
    addField(form, tr("Known hosts file"), withBrowse(m_knownHosts, tr("known_hosts file")),
             "known_hosts", tr("The host keys to verify against."), m_knownHosts);
    addField(form, QString(), m_acceptNewKeys, {},
             tr("Saving checks every host. Without this, a host whose key is not known yet is "
                "refused (as ssh's StrictHostKeyChecking=accept-new)."));
    form->addRow(groupLabel(tr("On the hosts")));
    addField(form, tr("Workdir"), m_workdir, "workdir",
             tr("The studio's folder on each host, relative to the login folder; %h is the "
                "host's name and %n its number, for hosts that share a filesystem."));
    addField(form, tr("Install folder"), m_installDir, "install_dir",
             tr("Where studio-launcher and studio-train are on the hosts."));
    addField(form, tr("Rendezvous address"), m_rendezvous, "rendezvous_address",
             tr("Node 0's address as the other hosts see it."));
    addField(form, tr("Socket interface"), m_socketIfname, "socket_ifname",
             tr("The interface Gloo and NCCL bind to."));
    addField(form, tr("Host timeout"), m_hostTimeout, "host_timeout",
             tr("How long a host may stay unreachable before its job fails."));
    return form;
}

QWidget* ClusterDialog::addField(QFormLayout* form, const QString& label, QWidget* field,
                                 const std::string& key, const QString& hint, QWidget* outlined) {
    auto* cell = new QWidget;
    auto* v = new QVBoxLayout(cell);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(3);
    v->addWidget(field);
    if (!key.empty()) {
        auto* message = new FieldMessage(outlined ? outlined : field, cell);
        v->addWidget(message);
        m_messages[key] = message;
    }
    if (!hint.isEmpty())
        v->addWidget(hintLabel(hint));
    if (label.isEmpty()) {
        form->addRow(cell);
    } else {
        auto* l = new QLabel(label);
        // Level with the field's first line of text, not with the message and help under it.
        const QWidget* text = outlined ? outlined : field;
        if (qobject_cast<const QPlainTextEdit*>(text)) {
            l->setAlignment(Qt::AlignRight | Qt::AlignTop);
            l->setContentsMargins(0, 5, 0, 0);
        } else {
            l->setMinimumHeight(field->sizeHint().height());
            l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        }
        l->setBuddy(outlined ? outlined : field);
        form->addRow(l, cell);
    }
    return cell;
}

QWidget* ClusterDialog::withBrowse(QLineEdit* edit, const QString& title) {
    auto* row = new QWidget;
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    h->setSpacing(6);
    auto* browse = new QPushButton(tr("Browse…"));
    browse->setAutoDefault(false);
    h->addWidget(edit, 1);
    h->addWidget(browse);
    connect(browse, &QPushButton::clicked, this, [this, edit, title] {
        const QString start =
            edit->text().isEmpty() ? QDir::home().filePath(QStringLiteral(".ssh")) : edit->text();
        const QString path = QFileDialog::getOpenFileName(this, title, start, QString(), nullptr,
                                                          QFileDialog::DontResolveSymlinks |
                                                              QFileDialog::HideNameFilterDetails);
        if (!path.isEmpty())
            edit->setText(path);
    });
    return row;
}

void ClusterDialog::setCluster(const remote::ClusterConfig& c) {
    const models::ClusterForm f = models::clusterForm(c);
    m_name->setText(qs(f.name));
    m_name->setReadOnly(m_mode == Mode::Edit);
    m_hosts->setPlainText(qs(f.hosts));
    m_identity->setText(qs(f.identityFile));
    m_knownHosts->setText(qs(f.knownHostsFile));
    m_workdir->setText(qs(f.workdir));
    m_installDir->setText(qs(f.installDir));
    m_rendezvous->setText(qs(f.rendezvousAddress));
    m_socketIfname->setText(qs(f.socketIfname));
    m_hostTimeout->setValue(static_cast<int>(f.hostTimeoutSeconds));
    if (m_mode == Mode::Edit)
        setWindowTitle(tr("Edit cluster %1").arg(qs(c.name)));
    validate();
}

models::ClusterForm ClusterDialog::form() const {
    models::ClusterForm f;
    f.name = m_name->text().toStdString();
    f.hosts = m_hosts->toPlainText().toStdString();
    f.identityFile = m_identity->text().toStdString();
    f.knownHostsFile = m_knownHosts->text().toStdString();
    f.workdir = m_workdir->text().toStdString();
    f.installDir = m_installDir->text().toStdString();
    f.rendezvousAddress = m_rendezvous->text().toStdString();
    f.socketIfname = m_socketIfname->text().toStdString();
    f.hostTimeoutSeconds = m_hostTimeout->value();
    return f;
}

remote::ClusterConfig ClusterDialog::cluster() const {
    return readClusterForm(form()).config;
}

bool ClusterDialog::acceptNewHostKeys() const {
    return m_acceptNewKeys->isChecked();
}

QStringList ClusterDialog::problems() const {
    return m_problems;
}

void ClusterDialog::validate() {
    const models::ClusterFormResult r =
        readClusterForm(form(), m_mode == Mode::Add ? m_taken : std::vector<std::string>{});
    m_problems.clear();
    for (const auto& [key, list] : r.problems)
        for (const auto& p : list)
            m_problems << qs(key) + QStringLiteral(": ") + qs(p);
    // A new cluster's empty name and hosts are what is left to type, not mistakes to point at;
    // Save stays disabled all the same.
    const auto untouched = [this](const std::string& key) {
        return m_mode == Mode::Add &&
               ((key == "name" && m_name->text().trimmed().isEmpty()) ||
                (key == "hosts" && m_hosts->toPlainText().trimmed().isEmpty()));
    };
    for (auto& [key, message] : m_messages) {
        QStringList lines;
        const auto it = r.problems.find(key);
        if (it != r.problems.end() && !untouched(key))
            for (const auto& p : it->second)
                lines << qs(p);
        message->setProblems(lines);
    }
    m_save->setEnabled(r.ok());
}

} // namespace studio::widgets
