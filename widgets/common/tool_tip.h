// Tooltips of painted widgets: a widget whose text depends on the point under the mouse answers
// QEvent::ToolTip with this from its event().
#pragma once

#include <QEvent>
#include <QHelpEvent>
#include <QToolTip>
#include <QWidget>

#include <functional>

namespace studio::widgets {

// Shows textAt(position) for a tooltip event (hides the tooltip when it is empty) and returns
// true; false for any other event.
inline bool showPointToolTip(QWidget* widget, QEvent* event,
                             const std::function<QString(QPoint)>& textAt) {
    if (event->type() != QEvent::ToolTip)
        return false;
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = textAt(help->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), text, widget);
    return true;
}

} // namespace studio::widgets
