// Accessibility for the studio's custom-painted views (charts, the heatmap, timelines, plots):
// a widget that inherits Describable says in words what it shows now, and Qt's accessibility
// (a screen reader, or QAccessible in a test) reads that as the widget's description, computed
// when asked, so live data costs nothing until someone listens. Its role is Chart; its name is
// the widget's accessibleName().
#pragma once

#include <QString>

namespace studio::widgets {

class Describable {
public:
    virtual ~Describable() = default;
    // What the widget shows, in a sentence or two ("loss: 120 points, last 0.31 at step 240").
    virtual QString describe() const = 0;

protected:
    Describable(); // installs the accessibility factory once
};

// Numbers as a description says them: 3 significant digits, no exponent for ordinary values.
QString spokenNumber(double value);

} // namespace studio::widgets
