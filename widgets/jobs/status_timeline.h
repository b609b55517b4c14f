// A job's status transitions as one horizontal strip: a segment per secondary status, its width
// its share of the job's time (with a minimum so short phases stay visible), labelled.
#pragma once

#include "engine/store/records.h"

#include <QWidget>

#include <vector>

namespace studio::widgets {

struct TimelineSegment {
    QString label;
    QString status;
    double start = 0;
    double end = 0;
    double x = 0; // layout, 0..1
    double width = 0;
};

// The strip's layout: every segment gets at least minShare of the width, the rest is split by
// duration. `now` ends the current segment.
std::vector<TimelineSegment> layoutTimeline(const std::vector<store::StatusTransition>& t,
                                            double now, double minShare = 0.06);

class StatusTimeline : public QWidget {
    Q_OBJECT
public:
    explicit StatusTimeline(QWidget* parent = nullptr);
    void setTransitions(std::vector<store::StatusTransition> transitions);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent*) override;

private:
    std::vector<store::StatusTransition> m_transitions;
};

} // namespace studio::widgets
