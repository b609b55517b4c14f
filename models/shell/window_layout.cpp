#include "models/shell/window_layout.h"

namespace studio::models {

QString WindowLayout::group(QSize screen) {
    return QStringLiteral("layout/%1x%2/").arg(screen.width()).arg(screen.height());
}

} // namespace studio::models
