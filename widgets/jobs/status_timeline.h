// A job's status transitions as one strip (the strip painter): a segment per secondary status,
// its width its share of the job's time with a minimum so short phases stay visible
// (models::layoutTimeline), labelled; under it the start time and the time in all.
#pragma once

#include "engine/store/records.h"
#include "widgets/charts/strip_view.h"

#include <vector>

namespace studio::widgets {

class StatusTimeline : public StripView {
    Q_OBJECT
public:
    explicit StatusTimeline(QWidget* parent = nullptr);
    void setTransitions(std::vector<store::StatusTransition> transitions);

protected:
    // Laid out when painted: the current status lasts until now.
    Content content() const override;

private:
    std::vector<store::StatusTransition> m_transitions;
};

} // namespace studio::widgets
