#include "widgets/launch/section_delegate.h"

#include "widgets/common/theme.h"

#include <QPainter>

#include <algorithm>

namespace studio::widgets {

QSize SectionDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex&) const {
    return {160, QFontMetrics(option.font).height() + 18};
}

void SectionDelegate::paint(QPainter* p, const QStyleOptionViewItem& option,
                            const QModelIndex& index) const {
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    const QRectF r = QRectF(option.rect).adjusted(8, 2, -8, -2);
    const bool selected = option.state & QStyle::State_Selected;
    QColor accent = option.palette.color(QPalette::Highlight);
    if (selected || (option.state & QStyle::State_MouseOver)) {
        QColor fill = accent;
        fill.setAlphaF(selected ? 0.14f : 0.06f);
        p->setPen(Qt::NoPen);
        p->setBrush(fill);
        p->drawRoundedRect(r, 5, 5);
    }
    if (selected) { // a bar on the left, as IDE side bars mark the current page
        p->setBrush(accent);
        p->drawRoundedRect(QRectF(r.left(), r.top() + 6, 3, r.height() - 12), 1.5, 1.5);
    }
    QFont f = option.font;
    f.setWeight(selected ? QFont::DemiBold : QFont::Normal);
    p->setFont(f);
    p->setPen(selected ? accent.darker(135) : option.palette.color(QPalette::WindowText));
    p->drawText(r.adjusted(14, 0, -36, 0), Qt::AlignVCenter | Qt::AlignLeft,
                index.data().toString());

    const int count = index.data(kProblemCountRole).toInt();
    if (count > 0) {
        const QString text = QString::number(count);
        QFont bf = option.font;
        bf.setBold(true);
        bf.setPointSizeF(bf.pointSizeF() * 0.82);
        const QFontMetrics fm(bf);
        const qreal h = fm.height() + 3;
        const qreal w = std::max<qreal>(h, fm.horizontalAdvance(text) + 10);
        const QRectF badge(r.right() - w - 8, r.center().y() - h / 2, w, h);
        p->setPen(Qt::NoPen);
        p->setBrush(models::statusColor(QStringLiteral("Failed")));
        p->drawRoundedRect(badge, h / 2, h / 2);
        p->setPen(Qt::white);
        p->setFont(bf);
        p->drawText(badge, Qt::AlignCenter, text);
    }
    p->restore();
}

} // namespace studio::widgets
