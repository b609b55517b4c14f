// The strip painter: segments along one horizontal bar (a job's statuses, its running and
// waiting segments), each in its colour with its label elided to fit and an optional mark at its
// left edge, and under the bar a legend or two captions. The layout comes from
// models/charts/strip_layout.h. GUI thread only.
#pragma once

#include "models/charts/strip_layout.h"
#include "widgets/common/described_widget.h"

#include <QList>
#include <QWidget>

#include <utility>
#include <vector>

namespace studio::widgets {

class StripView : public QWidget, public Describable {
    Q_OBJECT
public:
    QString describe() const override; // for screen readers (Describable)
    explicit StripView(QWidget* parent = nullptr);

    // What the strip shows; setting an empty list shows the placeholder text.
    void setItems(std::vector<models::StripItem> items);
    void setPlaceholder(const QString& text);
    // Under the bar: colour swatches with their meaning; when there are none, the captions (one
    // at the left, one at the right).
    void setLegend(QList<std::pair<QColor, QString>> legend);
    void setCaptions(const QString& left, const QString& right);

    // The index of the item drawn under pos (this widget's coordinates), -1 elsewhere: what a
    // tooltip describes.
    int itemAt(QPoint pos) const;

    QSize sizeHint() const override;

protected:
    struct Content {
        std::vector<models::StripItem> items;
        QString left;
        QString right;
    };
    // What to paint now: what was set, unless a subclass derives it at paint time (a live
    // timeline's current segment lasts until now).
    virtual Content content() const;
    void paintEvent(QPaintEvent*) override;

private:
    QRectF barRect() const;
    void paintItems(QPainter& p, const QRectF& bar,
                    const std::vector<models::StripItem>& items) const;
    void paintLegend(QPainter& p, const QRectF& bar) const;
    void paintCaptions(QPainter& p, const QRectF& bar, const Content& c) const;

    Content m_content;
    QString m_placeholder;
    QList<std::pair<QColor, QString>> m_legend;
};

} // namespace studio::widgets
