#include "widgets/notebook/auto_height_browser.h"

#include <QAbstractTextDocumentLayout>
#include <QScrollBar>

#include <cmath>

namespace studio::widgets {

AutoHeightBrowser::AutoHeightBrowser(QWidget* parent)
    : QTextBrowser(parent) {
    setReadOnly(true);
    setOpenExternalLinks(true);
    setFrameShape(QFrame::NoFrame);
    // On the notebook's page, like Jupyter's rendered cells.
    viewport()->setAutoFillBackground(false);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Wide tables scroll sideways rather than squeezing their columns.
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setLineWrapMode(QTextEdit::WidgetWidth);
    connect(document()->documentLayout(), &QAbstractTextDocumentLayout::documentSizeChanged, this,
            &AutoHeightBrowser::fitHeight);
}

QSize AutoHeightBrowser::sizeHint() const {
    const int h = static_cast<int>(std::ceil(document()->size().height())) + 2 * frameWidth() +
                  (horizontalScrollBar()->isVisible() ? horizontalScrollBar()->height() : 0);
    return {QTextBrowser::sizeHint().width(), std::max(h, fontMetrics().height() + 4)};
}

void AutoHeightBrowser::resizeEvent(QResizeEvent* event) {
    QTextBrowser::resizeEvent(event);
    fitHeight();
}

void AutoHeightBrowser::fitHeight() {
    const int h = sizeHint().height();
    if (h != height())
        setFixedHeight(h);
}

} // namespace studio::widgets
