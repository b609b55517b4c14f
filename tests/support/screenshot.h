// Saves a widget's picture as build/screenshots/<fileName> (GUI tests) and checks that the file
// was written: it exists and is not empty.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QString>
#include <QTimer>
#include <QWidget>
#include <QtTest>

#include <algorithm>

// True while a view under the widget still has a batched repaint or a reload to come: views
// arm a short single-shot timer for these (~40 ms for live data, a few hundred for reloads).
inline bool screenshotPending(const QWidget* widget) {
    const QList<QTimer*> timers = widget->findChildren<QTimer*>();
    return std::any_of(timers.begin(), timers.end(), [](const QTimer* t) {
        return t->isActive() && t->isSingleShot() && t->interval() <= 1000;
    });
}

// Pending layouts, batched repaints and reloads run first, so the picture shows what the test
// just set (a view that keeps re-arming its timer is shot after 5 s anyway). A failure fails
// the calling test function.
inline void shoot(QWidget* widget, const QString& fileName) {
    QCoreApplication::sendPostedEvents();
    if (!QTest::qWaitFor([widget] { return !screenshotPending(widget); }, 5000))
        qWarning("%s: shot while a view still re-arms its repaint", qPrintable(fileName));
    QCoreApplication::processEvents();
    const QString dir = QStringLiteral(STUDIO_SCREENSHOT_DIR);
    QVERIFY2(QDir().mkpath(dir), qPrintable(dir));
    const QString path = dir + QLatin1Char('/') + fileName;
    QVERIFY2(widget->grab().save(path), qPrintable(path));
    const QFileInfo written(path);
    QVERIFY2(written.exists() && written.size() > 0,
             qPrintable(path + QStringLiteral(" is empty")));
}

inline void shoot(QWidget* widget, const char* fileName) {
    shoot(widget, QString::fromUtf8(fileName));
}
