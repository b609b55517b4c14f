#include "widgets/shell/about_dialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString row(const QString& label, const QString& value) {
    return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
        .arg(label.toHtmlEscaped(), value.toHtmlEscaped());
}

QString trainerRows(const control::TrainerProbe& p) {
    QString rows = row(QObject::tr("LibTorch"), qs(p.libtorch)) +
                   row(QObject::tr("CUDA"), qs(control::cudaSummary(p)));
    if (p.devices.empty())
        rows += row(QObject::tr("Devices"), QObject::tr("no CUDA device"));
    for (const auto& d : p.devices)
        rows += row(QStringLiteral("cuda:%1").arg(d.index), qs(control::deviceSummary(d)));
    return rows + row(QObject::tr("NCCL"), qs(control::ncclSummary(p))) +
           row(QObject::tr("Gloo"), p.gloo ? QObject::tr("yes") : QObject::tr("no")) +
           row(QObject::tr("BLAS"), qs(p.blas)) +
           row(QObject::tr("Threads"), qs(control::threadsSummary(p))) +
           row(QObject::tr("AMP"), qs(control::ampSummary(p)));
}

QString listItems(const std::vector<std::string>& items) {
    QString html;
    for (const auto& i : items)
        html += QStringLiteral("<li>%1</li>").arg(qs(i).toHtmlEscaped());
    return html;
}

} // namespace

QString doctorReportHtml(const control::DoctorReport& r) {
    QString html = QStringLiteral("<table cellpadding=2>");
    if (r.probe)
        html += trainerRows(*r.probe);
    else
        html += row(QObject::tr("LibTorch"), QObject::tr("unknown: the probe failed"));
    html += row(QObject::tr("Python"), qs(r.python)) +
            row(QObject::tr("Python torch"), qs(control::pythonTorchSummary(r))) +
            QStringLiteral("</table>");
    if (!r.ok())
        html += QStringLiteral("<p><b>%1</b></p>").arg(qs(r.probeError).toHtmlEscaped());
    if (!r.warnings.empty())
        html += QStringLiteral("<p>%1</p><ul>%2</ul>")
                    .arg(QObject::tr("Warnings:"), listItems(r.warnings));
    return html;
}

AboutDialog::AboutDialog(const QString& home, QWidget* parent)
    : QDialog(parent) {
    setObjectName(QStringLiteral("aboutDialog"));
    setWindowTitle(tr("About ML Studio"));
    auto* title =
        new QLabel(tr("<b>ML Studio %1</b><p>Train, track and debug deep-learning runs on your own "
                      "machine.</p><p>Data: %2</p><p>What this machine can train with:</p>")
                       .arg(QStringLiteral(STUDIO_VERSION), home.toHtmlEscaped()),
                   this);
    m_report = new QLabel(tr("probing…"), this);
    m_report->setObjectName(QStringLiteral("aboutReport"));
    m_report->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_report->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(m_report, 1);
    layout->addWidget(buttons);
    setMinimumWidth(560);

    // The probe starts studio-train and a Python; that takes seconds, never the GUI thread's.
    m_task.run([](const models::CancelFlag&) { return control::collectDoctorReport(); },
               [this](const control::DoctorReport& r) { showReport(doctorReportHtml(r)); },
               [this](const QString& error) { showReport(error.toHtmlEscaped()); });
}

QString AboutDialog::reportText() const {
    return m_report->text();
}

void AboutDialog::showReport(const QString& html) {
    m_report->setText(html);
    m_probed = true;
    adjustSize();
    Q_EMIT reportShown();
}

} // namespace studio::widgets
