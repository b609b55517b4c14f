// How a curve chart looks and reads: its palette, the axes' fonts and pens, tick labels on a
// category axis, and the x axis's title and point labels for each x-axis mode.
#include "widgets/charts/curve_chart.h"

#include "widgets/charts/curve_chart_view.h"
#include "widgets/common/theme.h"

#include <QCategoryAxis>
#include <QChart>
#include <QLegend>

#include <algorithm>
#include <cmath>

namespace studio::widgets {

void CurveChart::styleAxis(QAbstractAxis* axis) {
    const QPalette& pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    QFont labels = font();
    labels.setPointSizeF(font().pointSizeF() * 0.85);
    QFont title = font();
    title.setPointSizeF(font().pointSizeF() * 0.9);
    axis->setLabelsFont(labels);
    axis->setLabelsBrush(models::blend(base, text, 0.7));
    axis->setTitleFont(title);
    axis->setTitleBrush(models::blend(base, text, 0.8));
    axis->setLinePen(QPen(models::blend(base, text, 0.35), 1));
    axis->setGridLinePen(QPen(models::blend(base, text, 0.12), 1));
    axis->setMinorGridLinePen(QPen(models::blend(base, text, 0.06), 1));
    axis->setShadesVisible(false);
    axis->setTruncateLabels(false);
}

void CurveChart::applyPalette() {
    const QPalette& pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    m_chart->setBackgroundBrush(base);
    m_chart->setBackgroundPen(Qt::NoPen);
    m_chart->setPlotAreaBackgroundVisible(false);
    QFont titleFont = font();
    titleFont.setBold(true);
    m_chart->setTitleFont(titleFont);
    m_chart->setTitleBrush(text);
    QFont legendFont = font();
    legendFont.setPointSizeF(font().pointSizeF() * 0.9);
    m_chart->legend()->setFont(legendFont);
    m_chart->legend()->setLabelColor(models::blend(base, text, 0.85));
    m_view->setBackgroundBrush(base);
    styleAxis(m_xAxis);
    styleAxis(m_yAxis);
    updatePens();
    m_view->viewport()->update();
}

void CurveChart::applyTicks(QAbstractAxis* axis, double min, double max,
                            const QList<models::AxisTick>& ticks) {
    auto* category = qobject_cast<QCategoryAxis*>(axis);
    if (!category) {
        axis->setRange(min, max);
        return;
    }
    // A category ends at each tick; the first starts a hair below the range so that a tick on
    // the range's start gets its label too.
    const double slack = (max - min) * 1e-6;
    QList<models::AxisTick> wanted;
    for (const models::AxisTick& t : ticks)
        if (t.value >= min - slack / 2 && t.value <= max &&
            std::none_of(wanted.cbegin(), wanted.cend(),
                         [&](const models::AxisTick& w) { return w.label == t.label; }))
            wanted.append(t);
    // Unchanged ticks keep their label items: rebuilding them costs a relayout of the chart.
    const QStringList labels = category->categoriesLabels();
    bool same = labels.size() == wanted.size();
    for (qsizetype i = 0; same && i < wanted.size(); ++i)
        same = labels[i] == wanted[i].label && category->endValue(labels[i]) == wanted[i].value;
    if (!same) {
        for (const QString& label : labels)
            category->remove(label);
        category->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        category->setStartValue(min - slack);
        for (const models::AxisTick& t : wanted)
            category->append(t.label, t.value);
    } else {
        category->setStartValue(min - slack);
    }
    category->setRange(min, max);
}

QString CurveChart::xAxisTitle() const {
    switch (m_xMode) {
    case models::XAxisMode::Step:
        return tr("Step");
    case models::XAxisMode::RelativeTime:
        return tr("Relative time (%1)").arg(m_relativeUnit.suffix);
    case models::XAxisMode::WallTime:
        return tr("Wall time");
    }
    return {};
}

QString CurveChart::formatX(double x) const {
    switch (m_xMode) {
    case models::XAxisMode::Step:
        return tr("Step %1").arg(static_cast<qint64>(std::llround(x)));
    case models::XAxisMode::RelativeTime:
        return tr("%1 since start").arg(models::formatDuration(x * m_relativeUnit.seconds));
    case models::XAxisMode::WallTime:
        return models::formatTime(x);
    }
    return {};
}

} // namespace studio::widgets
