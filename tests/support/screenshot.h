// Saves a widget's picture under the build's screenshots folder (GUI tests).
#pragma once

#include <QApplication>
#include <QDir>
#include <QString>
#include <QWidget>

inline void shoot(QWidget* w, const char* name) {
    QDir().mkpath(QStringLiteral(STUDIO_SCREENSHOT_DIR));
    QApplication::processEvents();
    w->grab().save(QStringLiteral(STUDIO_SCREENSHOT_DIR "/") + QLatin1String(name));
}
