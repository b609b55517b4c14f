#include "widgets/tuning/importance_chart.h"

#include "widgets/common/theme.h"

#include <QPainter>

namespace studio::widgets {

ImportanceChart::ImportanceChart(QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("importanceChart"));
    setAccessibleName(tr("Hyperparameter importance"));
    setToolTip(importanceMethod());
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void ImportanceChart::setImportances(QList<HyperparameterImportance> importances) {
    m_importances = std::move(importances);
    update();
}

void ImportanceChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics fm(font());
    const QColor text = palette().color(QPalette::Text);
    const QColor faint = models::blend(palette().color(QPalette::Base), text, 0.6);
    QFont bold = font();
    bold.setWeight(QFont::DemiBold);
    p.setFont(bold);
    p.setPen(text);
    p.drawText(QRectF(8, 4, width() - 16, fm.height() + 4), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Hyperparameter importance (ω², 1-way ANOVA)"));
    p.setFont(font());
    const qreal top = fm.height() + 16;
    if (m_importances.isEmpty() || m_importances.front().importance.jobs < 3) {
        p.setPen(faint);
        p.drawText(rect().adjusted(8, int(top), -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("Importance needs at least 3 completed jobs"));
        return;
    }
    qreal nameWidth = 0;
    for (const auto& i : m_importances)
        nameWidth = std::max<qreal>(nameWidth, fm.horizontalAdvance(i.name));
    nameWidth = std::min<qreal>(nameWidth + 4, width() * 0.35) + 16;
    const qreal valueWidth = fm.horizontalAdvance(QStringLiteral("0.000")) + 12;
    const qreal barLeft = nameWidth, barRight = width() - valueWidth - 8;
    const qreal rowHeight =
        std::min<qreal>(fm.height() + 14, (height() - top - 20) / m_importances.size());
    qreal y = top;
    for (const auto& i : m_importances) {
        p.setPen(text);
        p.drawText(QRectF(8, y, nameWidth - 16, rowHeight), Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(i.name, Qt::ElideMiddle, int(nameWidth) - 16));
        const qreal share = std::clamp(i.importance.omegaSquared, 0.0, 1.0);
        const QRectF track(barLeft, y + rowHeight * 0.22, barRight - barLeft, rowHeight * 0.56);
        p.setPen(Qt::NoPen);
        p.setBrush(models::blend(palette().color(QPalette::Base), text, 0.07));
        p.drawRoundedRect(track, 3, 3);
        p.setBrush(models::seriesColor(0));
        p.drawRoundedRect(QRectF(track.left(), track.top(), track.width() * share, track.height()),
                          3, 3);
        p.setPen(faint);
        p.drawText(QRectF(barRight + 6, y, valueWidth, rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   QString::number(share, 'f', 3));
        y += rowHeight;
    }
    p.setPen(faint);
    p.drawText(QRectF(8, y + 4, width() - 16, fm.height() + 2), Qt::AlignLeft | Qt::AlignVCenter,
               tr("over %n completed job(s); hover for the method", nullptr,
                  m_importances.front().importance.jobs));
}

QString ImportanceChart::describe() const {
    QStringList parts;
    for (const auto& i : m_importances)
        parts << tr("%1 %2").arg(i.name, spokenNumber(i.importance.omegaSquared));
    return parts.isEmpty() ? tr("No importance yet: too few finished training jobs")
                           : tr("ω² by hyperparameter: %1").arg(parts.join(QStringLiteral(", ")));
}

} // namespace studio::widgets
