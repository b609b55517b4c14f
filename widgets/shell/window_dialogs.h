// The studio window's small dialogs: the question asked when it closes while jobs run, the list
// of keyboard shortcuts and About.
#pragma once

#include <QString>

class QMenuBar;
class QWidget;

namespace studio::widgets {

enum class CloseChoice {
    KeepRunning, // the launchers go on; a studio follows the jobs again later
    Stop,        // stop the jobs, then close
    Cancel,      // the window stays open
};

// running: the jobs this studio follows; remote: how many of them run on a cluster's hosts
// (then Keep running is the default answer).
CloseChoice askAboutRunningJobs(QWidget* parent, int running, int remote);

// Every shortcut of the menus, with what it does.
void showKeyboardShortcuts(QWidget* parent, const QMenuBar* menus);

// The About box with the doctor report (opened without blocking; the report comes later).
void showAbout(QWidget* parent, const QString& home);

} // namespace studio::widgets
