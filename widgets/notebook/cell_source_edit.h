// The source editor of a notebook cell: a plain-text editor as tall as its lines (the notebook
// scrolls, not the cell) that reports Shift+Enter, Ctrl+Enter and focus loss to its cell, and
// asks for completions (Tab after a word) and documentation (Shift+Tab) as Jupyter does; Tab at
// the start of a line indents by four spaces.
#pragma once

#include <QPlainTextEdit>

namespace studio::widgets {

class CellSourceEdit : public QPlainTextEdit {
    Q_OBJECT
public:
    // monospace: code cells; markdown cells edit in the body font.
    explicit CellSourceEdit(bool monospace, QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

Q_SIGNALS:
    void runAndAdvance();       // Shift+Enter
    void runInPlace();          // Ctrl+Enter
    void completionRequested(); // Tab after a name or a dot
    void inspectRequested();    // Shift+Tab
    void focused();
    void focusLost();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void focusInEvent(QFocusEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitHeight();
};

} // namespace studio::widgets
