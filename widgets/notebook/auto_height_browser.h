// A read-only rich-text view as tall as its content, for notebook cells: rendered markdown and
// HTML outputs sit in the notebook's one scrolling column instead of scrolling on their own.
#pragma once

#include <QTextBrowser>

namespace studio::widgets {

class AutoHeightBrowser : public QTextBrowser {
    Q_OBJECT
public:
    explicit AutoHeightBrowser(QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitHeight();
};

} // namespace studio::widgets
