#include "widgets/common/theme.h"

#include <QActionGroup>
#include <QApplication>
#include <QDateTime>
#include <QHash>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QPixmap>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace studio::widgets {

namespace {

bool g_dark = false;

QPalette lightPalette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(0xf5, 0xf6, 0xf8));
    p.setColor(QPalette::WindowText, QColor(0x1f, 0x23, 0x28));
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(0xf6, 0xf8, 0xfa));
    p.setColor(QPalette::ToolTipBase, QColor(0x1f, 0x23, 0x28));
    p.setColor(QPalette::ToolTipText, Qt::white);
    p.setColor(QPalette::Text, QColor(0x1f, 0x23, 0x28));
    p.setColor(QPalette::PlaceholderText, QColor(0x8c, 0x95, 0x9f));
    p.setColor(QPalette::Button, QColor(0xf0, 0xf2, 0xf5));
    p.setColor(QPalette::ButtonText, QColor(0x1f, 0x23, 0x28));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xde));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x1a, 0x5f, 0xd0));
    p.setColor(QPalette::Mid, QColor(0xd0, 0xd7, 0xde));
    p.setColor(QPalette::Dark, QColor(0xaf, 0xb8, 0xc1));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x9a, 0xa1, 0xa9));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x9a, 0xa1, 0xa9));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x9a, 0xa1, 0xa9));
    return p;
}

QPalette darkPalette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x1e, 0x22, 0x27));
    p.setColor(QPalette::WindowText, QColor(0xd8, 0xdc, 0xe1));
    p.setColor(QPalette::Base, QColor(0x16, 0x19, 0x1d));
    p.setColor(QPalette::AlternateBase, QColor(0x1c, 0x20, 0x25));
    p.setColor(QPalette::ToolTipBase, QColor(0x2b, 0x30, 0x36));
    p.setColor(QPalette::ToolTipText, QColor(0xe6, 0xe9, 0xec));
    p.setColor(QPalette::Text, QColor(0xd8, 0xdc, 0xe1));
    p.setColor(QPalette::PlaceholderText, QColor(0x76, 0x7d, 0x86));
    p.setColor(QPalette::Button, QColor(0x2a, 0x2f, 0x35));
    p.setColor(QPalette::ButtonText, QColor(0xd8, 0xdc, 0xe1));
    p.setColor(QPalette::Highlight, QColor(0x3b, 0x7d, 0xe9));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xff));
    p.setColor(QPalette::Mid, QColor(0x3a, 0x40, 0x47));
    p.setColor(QPalette::Dark, QColor(0x12, 0x14, 0x17));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x6b, 0x72, 0x7a));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x6b, 0x72, 0x7a));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x6b, 0x72, 0x7a));
    return p;
}

} // namespace

void applyTheme(QApplication& app, ThemeChoice choice) {
    // The platform's palette before ours replaces it: what "follow the system" reads.
    static const QPalette system = QApplication::palette();
    if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion")))
        QApplication::setStyle(fusion);
    bool dark = choice == ThemeChoice::Dark;
    if (choice == ThemeChoice::System)
        dark = system.color(QPalette::Window).lightness() < 128;
    g_dark = dark;
    app.setPalette(dark ? darkPalette() : lightPalette());
}

bool darkThemeActive() {
    return g_dark;
}

void addThemeMenu(QMenu* parent, const QString& settingsPath) {
    QMenu* menu = parent->addMenu(QObject::tr("&Theme"));
    auto* group = new QActionGroup(menu);
    const int current =
        QSettings(settingsPath, QSettings::IniFormat).value(QStringLiteral("theme"), 0).toInt();
    const QString names[] = {QObject::tr("Follow the system"), QObject::tr("Light"),
                             QObject::tr("Dark")};
    for (int i = 0; i < 3; ++i) {
        QAction* a = menu->addAction(names[i]);
        a->setCheckable(true);
        a->setChecked(i == current);
        group->addAction(a);
        QObject::connect(a, &QAction::triggered, menu, [i, settingsPath] {
            QSettings(settingsPath, QSettings::IniFormat).setValue(QStringLiteral("theme"), i);
            if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance()))
                applyTheme(*app, static_cast<ThemeChoice>(i));
        });
    }
}

QColor statusColor(const QString& status) {
    if (status == QLatin1String("Completed") || status == QLatin1String("NoIssuesFound"))
        return QColor(0x2e, 0xa0, 0x43);
    if (status == QLatin1String("Failed") || status == QLatin1String("IssuesFound") ||
        status == QLatin1String("Error"))
        return QColor(0xd7, 0x3a, 0x49);
    if (status == QLatin1String("InProgress") || status == QLatin1String("Training"))
        return QColor(0x2f, 0x81, 0xf7);
    if (status == QLatin1String("Stopping") || status == QLatin1String("Stopped"))
        return QColor(0xd2, 0x99, 0x22);
    return QColor(0x8c, 0x95, 0x9f);
}

QIcon statusIcon(const QString& status) {
    static QHash<QString, QIcon> cache;
    if (auto it = cache.constFind(status); it != cache.constEnd())
        return *it;
    QIcon icon;
    for (int size : {16, 32}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        const qreal s = size;
        const QColor c = statusColor(status);
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        p.drawEllipse(QRectF(s * 0.1, s * 0.1, s * 0.8, s * 0.8));
        QPen mark(Qt::white, s * 0.12, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
        p.setPen(mark);
        p.setBrush(Qt::NoBrush);
        if (status == QLatin1String("Completed") || status == QLatin1String("NoIssuesFound")) {
            QPainterPath check;
            check.moveTo(s * 0.3, s * 0.52);
            check.lineTo(s * 0.45, s * 0.66);
            check.lineTo(s * 0.71, s * 0.36);
            p.drawPath(check);
        } else if (status == QLatin1String("Failed") || status == QLatin1String("Error") ||
                   status == QLatin1String("IssuesFound")) {
            p.drawLine(QPointF(s * 0.35, s * 0.35), QPointF(s * 0.65, s * 0.65));
            p.drawLine(QPointF(s * 0.65, s * 0.35), QPointF(s * 0.35, s * 0.65));
        } else if (status == QLatin1String("Stopped") || status == QLatin1String("Stopping")) {
            p.fillRect(QRectF(s * 0.36, s * 0.36, s * 0.28, s * 0.28), Qt::white);
        } else if (status == QLatin1String("InProgress")) {
            p.setPen(Qt::NoPen);
            p.setBrush(Qt::white);
            p.drawEllipse(QPointF(s * 0.5, s * 0.5), s * 0.14, s * 0.14);
        }
        p.end();
        icon.addPixmap(pm);
    }
    cache.insert(status, icon);
    return icon;
}

QColor seriesColor(int index) {
    static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                                    QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
                                    QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                    QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf),
                                    QColor(0xbc, 0xbd, 0x22), QColor(0x7f, 0x7f, 0x7f)};
    const int n = static_cast<int>(std::size(colors));
    return colors[((index % n) + n) % n];
}

QString formatDuration(double seconds) {
    if (!(seconds >= 0))
        return QStringLiteral("-");
    if (seconds < 60)
        return QString::number(seconds, 'f', seconds < 10 ? 1 : 0) + QStringLiteral(" s");
    const qint64 s = static_cast<qint64>(seconds);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1 h %2 min")
        .arg(s / 3600)
        .arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString formatTime(double unixSeconds) {
    if (unixSeconds <= 0)
        return {};
    return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(unixSeconds * 1000))
        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

} // namespace studio::widgets
