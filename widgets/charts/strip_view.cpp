#include "widgets/charts/strip_view.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace studio::widgets {

namespace {

constexpr double kBarTop = 4;
constexpr double kBarHeight = 22;
constexpr int kHeight = 48;

// Where an item is drawn on the bar: at least a pixel wide.
QRectF itemRect(const QRectF& bar, const models::StripItem& s) {
    return {bar.left() + s.x * bar.width(), bar.top(), std::max(1.0, s.width * bar.width()),
            bar.height()};
}

} // namespace

StripView::StripView(QWidget* parent)
    : QWidget(parent) {
    setAccessibleName(tr("Timeline"));
    setMinimumHeight(kHeight);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void StripView::setItems(std::vector<models::StripItem> items) {
    m_content.items = std::move(items);
    update();
}

void StripView::setPlaceholder(const QString& text) {
    m_placeholder = text;
    update();
}

void StripView::setLegend(QList<std::pair<QColor, QString>> legend) {
    m_legend = std::move(legend);
    update();
}

void StripView::setCaptions(const QString& left, const QString& right) {
    m_content.left = left;
    m_content.right = right;
    update();
}

int StripView::itemAt(QPoint pos) const {
    const Content c = content();
    for (std::size_t i = 0; i < c.items.size(); ++i)
        if (itemRect(barRect(), c.items[i]).contains(pos))
            return static_cast<int>(i);
    return -1;
}

QSize StripView::sizeHint() const {
    return {600, kHeight};
}

StripView::Content StripView::content() const {
    return m_content;
}

QRectF StripView::barRect() const {
    return {1, kBarTop, width() - 2.0, kBarHeight};
}

void StripView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF bar = barRect();
    const Content c = content();
    if (c.items.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(bar, Qt::AlignVCenter | Qt::AlignLeft, m_placeholder);
        return;
    }
    paintItems(p, bar, c.items);
    if (!m_legend.isEmpty())
        paintLegend(p, bar);
    else
        paintCaptions(p, bar, c);
}

void StripView::paintItems(QPainter& p, const QRectF& bar,
                           const std::vector<models::StripItem>& items) const {
    QPainterPath clip;
    clip.addRoundedRect(bar, 5, 5);
    p.setClipPath(clip);
    const QFontMetrics fm(font());
    const QString ellipsis(QChar(0x2026));
    for (std::size_t i = 0; i < items.size(); ++i) {
        const auto& s = items[i];
        const QRectF r = itemRect(bar, s);
        p.fillRect(r, s.color);
        if (i + 1 < items.size()) // a hairline between neighbours of one colour
            p.fillRect(QRectF(r.right() - 1, r.top(), 1, r.height()),
                       palette().color(QPalette::Base));
        const QString text =
            fm.elidedText(s.label, Qt::ElideRight, static_cast<int>(r.width()) - 6);
        if (!text.isEmpty() && text != ellipsis) {
            p.setPen(Qt::white);
            p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignCenter, text);
        }
    }
    p.setClipping(false);
    for (const auto& s : items)
        if (s.mark.isValid())
            p.fillRect(
                QRectF(bar.left() + s.x * bar.width() - 1, bar.top() - 3, 3, bar.height() + 6),
                s.mark);
}

void StripView::paintLegend(QPainter& p, const QRectF& bar) const {
    p.setPen(palette().color(QPalette::WindowText));
    qreal x = bar.left();
    const qreal y = bar.bottom() + 6;
    for (const auto& [color, text] : m_legend) {
        p.fillRect(QRectF(x, y + 3, 10, 10), color);
        p.drawText(QPointF(x + 14, y + 12), text);
        x += 24 + fontMetrics().horizontalAdvance(text);
    }
}

void StripView::paintCaptions(QPainter& p, const QRectF& bar, const Content& c) const {
    p.setPen(palette().color(QPalette::PlaceholderText));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    p.drawText(QRectF(bar.left(), bar.bottom() + 2, bar.width() / 2, 16), Qt::AlignLeft, c.left);
    p.drawText(QRectF(bar.center().x(), bar.bottom() + 2, bar.width() / 2, 16), Qt::AlignRight,
               c.right);
}

QString StripView::describe() const {
    const Content c = content();
    QStringList parts;
    for (const auto& item : c.items)
        if (!item.label.isEmpty())
            parts << tr("%1 (%2%)").arg(item.label).arg(qRound(item.width * 100));
    if (parts.isEmpty())
        return m_placeholder;
    QString text = parts.join(QStringLiteral(", "));
    if (!c.left.isEmpty() || !c.right.isEmpty())
        text += tr("; from %1 to %2").arg(c.left, c.right);
    return text;
}

} // namespace studio::widgets
