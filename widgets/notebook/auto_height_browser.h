// A read-only rich-text view as tall as its content, for notebook cells: rendered markdown and
// HTML outputs sit in the notebook's one scrolling column instead of scrolling on their own.
#pragma once

#include <QTextBrowser>
#include <QUrl>

namespace studio::widgets {

class AutoHeightBrowser : public QTextBrowser {
    Q_OBJECT
public:
    explicit AutoHeightBrowser(QWidget* parent = nullptr);

    // Links in a notebook's outputs open in the system browser only for http, https and
    // mailto; file:, javascript:, custom handlers and relative links do nothing.
    static bool opensExternally(const QUrl& url);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitHeight();
};

} // namespace studio::widgets
