// The small charts of the Insights dashboard: the job-phase pie (initialization, training
// loop, finalization), the training timeline (job phases over time and, with spot data, the
// billing segments of each attempt with their interruptions, as two strips), and the step-phase
// chart (data, forward, backward, comm, optimizer per step as stacked bars, or laid out on a
// time axis for a selected window). Geometry comes from tested math: engine/report's pieSlices,
// engine/plot's LinearScale, chart_math's ticks and the strip layout. GUI thread only.
#pragma once

#include "engine/store/records.h"

#include <QColor>
#include <QList>
#include <QString>
#include <QWidget>

#include <utility>
#include <vector>

namespace studio::widgets {

class StripView;

// The five step phases in drawing order, their names and colours.
inline constexpr int kStepPhaseCount = 5;
QString stepPhaseName(int phase); // "data", "forward", "backward", "comm", "optimizer"
QColor stepPhaseColor(int phase);
double stepPhaseMs(const store::StepTiming& t, int phase);

struct PieEntry {
    QString label;
    double value = 0; // seconds
    QColor color;
};

class PhasePie : public QWidget {
    Q_OBJECT

public:
    explicit PhasePie(QWidget* parent = nullptr);
    void setEntries(const QList<PieEntry>& entries);
    const QList<PieEntry>& entries() const { return m_entries; }
    QSize sizeHint() const override { return {360, 170}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QList<PieEntry> m_entries;
};

// One span of the training timeline.
struct TimelineSpan {
    double start = 0;
    double end = 0;
    QString label;
    QColor color;
};

// Two strips on one time axis, drawn by the strip painter (StripView): the job's phases, and
// the billing segments of spot attempts (running, waiting for capacity) with a mark where an
// interruption ended a running one.
class TrainingTimeline : public QWidget {
    Q_OBJECT

public:
    explicit TrainingTimeline(QWidget* parent = nullptr);
    void setPhases(const QList<TimelineSpan>& phases);
    void setBilling(const std::vector<store::BillingSegment>& segments);
    // Interruptions: the ends of running segments followed by a later attempt.
    QList<double> interruptions() const;
    const std::vector<store::BillingSegment>& billing() const { return m_billing; }
    // The span under a point (what, from, to, how long), "" elsewhere; shown as the tooltip.
    QString toolTipAt(QPoint pos) const;

protected:
    bool event(QEvent* event) override;

private:
    // The running segments (indices into m_billing) that an interruption ended.
    std::vector<std::size_t> interruptedSegments() const;
    // Both strips' items over the time both lanes cover.
    void relayout();

    QList<TimelineSpan> m_phases;
    std::vector<store::BillingSegment> m_billing;
    StripView* m_job;
    StripView* m_spot;
};

// Step phases: stacked bars per step (the last N steps), or a timeline of every rank's steps
// in a time window, each step cut into its phases.
class StepPhaseChart : public QWidget {
    Q_OBJECT

public:
    explicit StepPhaseChart(QWidget* parent = nullptr);
    void setTitle(const QString& title);
    // Bars: one per step (in order), height = the sum of its phases.
    void setBars(const std::vector<store::StepTiming>& steps);
    // Timeline: one lane per node and rank, the steps that ran in [from, to].
    void setTimeline(const std::vector<store::StepTiming>& steps, double from, double to);
    // Shown instead of the chart while there is nothing to draw.
    void setPlaceholder(const QString& text);
    bool isTimeline() const { return m_timeline; }
    // The step under a point (its phases in ms), "" elsewhere; shown as the tooltip.
    QString toolTipAt(QPoint pos) const;
    const std::vector<store::StepTiming>& steps() const { return m_steps; }
    QSize sizeHint() const override { return {600, 220}; }

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    QRect plotArea() const;
    // One lane per node and rank (timeline), in lane order.
    std::vector<std::pair<std::pair<int, int>, std::vector<const store::StepTiming*>>>
    lanes() const;
    void paintBars(class QPainter& p, const QRect& area);
    void paintTimeline(class QPainter& p, const QRect& area);
    void paintLegend(class QPainter& p, const QRect& area);

    QString m_title;
    QString m_placeholder;
    std::vector<store::StepTiming> m_steps;
    bool m_timeline = false;
    double m_from = 0;
    double m_to = 0;
};

} // namespace studio::widgets
