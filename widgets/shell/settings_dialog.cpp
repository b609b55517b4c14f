#include "widgets/shell/settings_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace studio::widgets {

SettingsDialog::SettingsDialog(const models::StudioSettings& s, const QStringList& clusters,
                               const QString& home, QWidget* parent)
    : QDialog(parent)
    , m_base(s)
    , m_home(home) {
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings"));
    auto* form = new QFormLayout;

    m_theme = new QComboBox(this);
    m_theme->setObjectName(QStringLiteral("settingsTheme"));
    m_theme->addItems({tr("Follow the system"), tr("Light"), tr("Dark")});
    m_theme->setCurrentIndex(s.theme);
    form->addRow(tr("&Theme"), m_theme);

    addNotificationRows(form, s);

    m_cluster = new QComboBox(this);
    m_cluster->setObjectName(QStringLiteral("settingsCluster"));
    m_cluster->addItem(tr("local (this machine)"), QStringLiteral("local"));
    for (const QString& c : clusters)
        if (c != QLatin1String("local"))
            m_cluster->addItem(c, c);
    const int at = m_cluster->findData(s.defaultCluster);
    m_cluster->setCurrentIndex(at < 0 ? 0 : at);
    form->addRow(tr("New jobs run &on"), m_cluster);

    addWorkspaceRow(form, s.workspaceOr(home));

    m_smoothing = new QDoubleSpinBox(this);
    m_smoothing->setObjectName(QStringLiteral("settingsSmoothing"));
    m_smoothing->setRange(0, 0.99);
    m_smoothing->setSingleStep(0.05);
    m_smoothing->setValue(s.smoothing);
    m_smoothing->setToolTip(tr("The exponential moving average's weight of new charts (0: raw)"));
    form->addRow(tr("Chart &smoothing"), m_smoothing);

    m_refresh = new QDoubleSpinBox(this);
    m_refresh->setObjectName(QStringLiteral("settingsRefresh"));
    m_refresh->setRange(models::StudioSettings::kMinRefreshMs / 1000.0,
                        models::StudioSettings::kMaxRefreshMs / 1000.0);
    m_refresh->setDecimals(2);
    m_refresh->setSuffix(tr(" s"));
    m_refresh->setValue(s.refreshMs / 1000.0);
    m_refresh->setToolTip(tr("How often views of running jobs reload from the database; live "
                             "logs and metrics arrive as they happen either way"));
    form->addRow(tr("&Refresh running views every"), m_refresh);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* v = new QVBoxLayout(this);
    v->addLayout(form);
    if (!s.problems.isEmpty()) {
        auto* problems = new QLabel(tr("studio.ini had values out of range (defaults shown):\n") +
                                        s.problems.join(QLatin1Char('\n')),
                                    this);
        problems->setWordWrap(true);
        v->addWidget(problems);
    }
    v->addWidget(buttons);
    m_theme->setFocus();
}

void SettingsDialog::addNotificationRows(QFormLayout* form, const models::StudioSettings& s) {
    auto* notify = new QVBoxLayout;
    for (int k = 0; k < models::kNoticeKinds; ++k) {
        const auto kind = static_cast<models::NoticeKind>(k);
        auto* box = new QCheckBox(models::noticeKindName(kind), this);
        box->setObjectName(QStringLiteral("settingsNotify_") + models::noticeKindKey(kind));
        box->setChecked(s.notifies(kind));
        notify->addWidget(box);
        m_notify[static_cast<std::size_t>(k)] = box;
    }
    auto* notifyLabel = new QLabel(tr("Notify about"), this);
    form->addRow(notifyLabel, notify);
}

void SettingsDialog::addWorkspaceRow(QFormLayout* form, const QString& folder) {
    auto* ws = new QHBoxLayout;
    m_workspace = new QLineEdit(folder, this);
    m_workspace->setObjectName(QStringLiteral("settingsWorkspace"));
    auto* browse = new QPushButton(tr("&Browse…"), this);
    ws->addWidget(m_workspace, 1);
    ws->addWidget(browse);
    auto* wsLabel = new QLabel(tr("&Workspace folder"), this);
    wsLabel->setBuddy(m_workspace);
    form->addRow(wsLabel, ws);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Workspace folder"), m_workspace->text());
        if (!dir.isEmpty())
            m_workspace->setText(dir);
    });
}

models::StudioSettings SettingsDialog::settings() const {
    models::StudioSettings out = m_base;
    out.problems.clear();
    out.theme = m_theme->currentIndex();
    for (std::size_t k = 0; k < m_notify.size(); ++k)
        out.notify[k] = m_notify[k]->isChecked();
    out.defaultCluster = m_cluster->currentData().toString();
    const QString ws = m_workspace->text().trimmed();
    out.workspace = ws == m_home + QStringLiteral("/workspace") ? QString() : ws;
    out.smoothing = m_smoothing->value();
    out.refreshMs = static_cast<int>(m_refresh->value() * 1000.0 + 0.5);
    return out;
}

} // namespace studio::widgets
