// Where the studio window's layout is kept: one set of keys per screen size, so a laptop's
// layout and a desktop monitor's do not overwrite each other, and whether a first start should
// maximize (the screen is smaller than the window's default size).
#pragma once

#include <QSize>
#include <QString>

namespace studio::models {

struct WindowLayout {
    static constexpr QSize kDefaultSize{1440, 900};

    // "layout/1920x1080/": the settings group of a screen's available size.
    static QString group(QSize screen);
    // On a first start (no layout kept for this screen): maximize when the default does not fit.
    static bool maximizeOnFirstStart(QSize available) {
        return available.width() < kDefaultSize.width() ||
               available.height() < kDefaultSize.height();
    }
};

} // namespace studio::models
