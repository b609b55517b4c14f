#include "models/common/status_style.h"

#include <QDateTime>
#include <QHash>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

#include <iterator>

namespace studio::models {

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
    if (status == QLatin1String("Imported")) // ended elsewhere (mlstudio import)
        return QColor(0x82, 0x50, 0xdf);
    return mutedColor();
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
        } else if (status == QLatin1String("Imported")) { // an arrow down into a tray
            p.drawLine(QPointF(s * 0.5, s * 0.27), QPointF(s * 0.5, s * 0.56));
            p.drawLine(QPointF(s * 0.38, s * 0.45), QPointF(s * 0.5, s * 0.57));
            p.drawLine(QPointF(s * 0.62, s * 0.45), QPointF(s * 0.5, s * 0.57));
            p.drawLine(QPointF(s * 0.31, s * 0.7), QPointF(s * 0.69, s * 0.7));
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

QColor mutedColor() {
    return QColor(0x8c, 0x95, 0x9f);
}

QFont monospaceFont() {
    QFont f;
    f.setFamilies({QStringLiteral("monospace")});
    f.setStyleHint(QFont::Monospace);
    return f;
}

} // namespace studio::models
