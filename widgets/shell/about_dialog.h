// The About box: the studio's version and data folder, and what this machine can train with (the
// doctor report: LibTorch, CUDA and its devices, NCCL, Gloo, BLAS, threads, Python and its
// torch). The report is collected off the GUI thread; "probing…" shows until it arrives.
// GUI thread only.
#pragma once

#include "engine/control/doctor.h"
#include "models/common/background_task.h"

#include <QDialog>

class QLabel;

namespace studio::widgets {

// The doctor report as the About box shows it: an HTML table, warnings and errors after it.
QString doctorReportHtml(const control::DoctorReport& r);

class AboutDialog : public QDialog {
    Q_OBJECT
public:
    explicit AboutDialog(const QString& home, QWidget* parent = nullptr);

    bool probed() const { return m_probed; }
    // The report's text as shown (rich text), for tests.
    QString reportText() const;

Q_SIGNALS:
    void reportShown();

private:
    void showReport(const QString& html);

    QLabel* m_report = nullptr;
    bool m_probed = false;
    models::BackgroundTask<control::DoctorReport> m_task{this};
};

} // namespace studio::widgets
