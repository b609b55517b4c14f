#include "widgets/shell/window_dialogs.h"

#include "widgets/shell/about_dialog.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>

namespace studio::widgets {

CloseChoice askAboutRunningJobs(QWidget* parent, int running, int remote) {
    QMessageBox box(parent);
    box.setObjectName(QStringLiteral("closeQuestion"));
    box.setIcon(QMessageBox::Question);
    box.setWindowTitle(QObject::tr("Jobs are running"));
    QString text = QObject::tr("%n job(s) still running.", nullptr, running);
    if (remote > 0)
        text += QLatin1Char(' ') + QObject::tr("%n of them on a cluster's hosts.", nullptr, remote);
    box.setText(text);
    box.setInformativeText(
        QObject::tr("Keep running: the jobs' launchers go on without the studio, which follows "
                    "them again at its next start (or `mlstudio attach JOB` does).\nStop: the "
                    "jobs are stopped before the window closes."));
    QPushButton* keep = box.addButton(QObject::tr("Keep running"), QMessageBox::AcceptRole);
    keep->setObjectName(QStringLiteral("keepRunning"));
    QPushButton* stop = box.addButton(QObject::tr("Stop"), QMessageBox::DestructiveRole);
    stop->setObjectName(QStringLiteral("stopJobs"));
    QPushButton* cancel = box.addButton(QMessageBox::Cancel);
    // Stopping a remote run by accident costs the most; otherwise nothing is chosen for the user.
    box.setDefaultButton(remote > 0 ? keep : cancel);
    box.exec();
    if (box.clickedButton() == keep)
        return CloseChoice::KeepRunning;
    if (box.clickedButton() == stop)
        return CloseChoice::Stop;
    return CloseChoice::Cancel;
}

void showKeyboardShortcuts(QWidget* parent, const QMenuBar* menus) {
    QString text = QStringLiteral("<table cellpadding=3>");
    for (const QMenu* m : menus->findChildren<QMenu*>())
        for (const QAction* a : m->actions())
            if (!a->shortcut().isEmpty())
                text += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                            .arg(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
                                 a->text().remove(QLatin1Char('&')).toHtmlEscaped());
    QMessageBox::information(parent, QObject::tr("Keyboard shortcuts"),
                             text + QStringLiteral("</table>"));
}

void showAbout(QWidget* parent, const QString& home) {
    // One About box at a time: a second click brings the open one forward.
    if (auto* open = parent->findChild<AboutDialog*>(QStringLiteral("aboutDialog"))) {
        open->raise();
        open->activateWindow();
        return;
    }
    auto* about = new AboutDialog(home, parent);
    about->setAttribute(Qt::WA_DeleteOnClose);
    about->open();
}

} // namespace studio::widgets
