// The studio's look: the Fusion style with light and dark palettes (following the system unless
// the user chose one). Status colours and icons, which models use too, are in
// models/common/status_style.h.
#pragma once

#include "models/common/status_style.h"

#include <QIcon>
#include <QPalette>
#include <QString>
#include <QStyle>

#include <functional>

class QActionGroup;
class QApplication;
class QMenu;

namespace studio::widgets {

enum class ThemeChoice { System, Light, Dark };

// Applies the Fusion style with the chosen palette; System follows the platform's palette.
void applyTheme(QApplication& app, ThemeChoice choice);
bool darkThemeActive();
// A monochrome standard icon drawn in the palette's text colour, so it shows on dark themes too
// (Fusion draws some, such as the media triangle, black whatever the palette).
QIcon textColoredIcon(QStyle::StandardPixmap which, const QStyle* style, const QPalette& palette);
// A "Theme" submenu of parent (follow the system, light, dark) with `current` checked; a choice
// calls `chosen`. Returns the group, whose actions are in ThemeChoice order.
QActionGroup* addThemeMenu(QMenu* parent, ThemeChoice current,
                           std::function<void(ThemeChoice)> chosen);

} // namespace studio::widgets
