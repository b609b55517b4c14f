// Hyperparameter importance as horizontal bars (ω² of a one-way ANOVA, most important first);
// the tooltip says how it is computed. GUI thread only.
#pragma once

#include "widgets/common/described_widget.h"
#include "widgets/tuning/tuning_charts.h"

#include <QWidget>

namespace studio::widgets {

class ImportanceChart : public QWidget, public Describable {
    Q_OBJECT
public:
    QString describe() const override; // for screen readers (Describable)
    explicit ImportanceChart(QWidget* parent = nullptr);

    void setImportances(QList<HyperparameterImportance> importances);
    const QList<HyperparameterImportance>& importances() const { return m_importances; }

    QSize sizeHint() const override { return {360, 220}; }
    QSize minimumSizeHint() const override { return {200, 120}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QList<HyperparameterImportance> m_importances;
};

} // namespace studio::widgets
