#include "widgets/notebook/auto_height_browser.h"

#include <QAbstractTextDocumentLayout>
#include <QDesktopServices>
#include <QScrollBar>

#include <cmath>

namespace studio::widgets {

AutoHeightBrowser::AutoHeightBrowser(QWidget* parent)
    : QTextBrowser(parent) {
    setReadOnly(true);
    // Outputs come from notebooks of any origin: links are checked, never followed blindly.
    setOpenLinks(false);
    setOpenExternalLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, [](const QUrl& url) {
        if (opensExternally(url))
            QDesktopServices::openUrl(url);
    });
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

bool AutoHeightBrowser::opensExternally(const QUrl& url) {
    const QString scheme = url.scheme().toLower();
    return url.isValid() && !url.isRelative() &&
           (scheme == QLatin1String("http") || scheme == QLatin1String("https") ||
            scheme == QLatin1String("mailto"));
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
