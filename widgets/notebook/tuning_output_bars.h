// The bars of a tuning job's notebook card: one bar per training job in launch order, its
// height the job's objective (models::objectiveBars), the best job's bar marked, failed jobs as
// a red tick and running ones as an outline. Hovering a bar names its job and objective. GUI
// thread only.
#pragma once

#include "models/notebook/tuning_summary.h"
#include "widgets/common/described_widget.h"

#include <QWidget>

namespace studio::widgets {

class TuningOutputBars : public QWidget, public Describable {
    Q_OBJECT
public:
    explicit TuningOutputBars(QWidget* parent = nullptr);

    void setSummary(const models::TuningCardSummary& summary);
    // The bar under a point of the widget; -1 for none.
    int barAt(const QPoint& point) const;
    QSize sizeHint() const override { return {220, 56}; }
    QString describe() const override; // for screen readers (Describable)

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    QRectF barArea() const;

    models::TuningCardSummary m_summary;
};

} // namespace studio::widgets
