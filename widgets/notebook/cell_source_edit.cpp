#include "widgets/notebook/cell_source_edit.h"

#include <QFontDatabase>
#include <QKeyEvent>
#include <QScrollBar>
#include <QTextBlock>

namespace studio::widgets {

CellSourceEdit::CellSourceEdit(bool monospace, QWidget* parent)
    : QPlainTextEdit(parent) {
    if (monospace) {
        setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        setLineWrapMode(QPlainTextEdit::NoWrap);
        setTabStopDistance(fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 4);
    }
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    connect(document(), &QTextDocument::contentsChanged, this, &CellSourceEdit::fitHeight);
    connect(horizontalScrollBar(), &QScrollBar::rangeChanged, this, &CellSourceEdit::fitHeight);
    fitHeight();
}

QSize CellSourceEdit::sizeHint() const {
    // Wrapped lines count too: each block's layout knows how many lines it took.
    int lines = 0;
    for (QTextBlock b = document()->begin(); b.isValid(); b = b.next())
        lines += std::max(1, b.layout() ? b.layout()->lineCount() : 1);
    const int text = lines * fontMetrics().lineSpacing();
    const int margins = static_cast<int>(2 * document()->documentMargin()) + 2 * frameWidth() +
                        contentsMargins().top() + contentsMargins().bottom();
    const int bar =
        horizontalScrollBar()->maximum() > 0 ? horizontalScrollBar()->sizeHint().height() : 0;
    return {QPlainTextEdit::sizeHint().width(), text + margins + bar + 2};
}

void CellSourceEdit::fitHeight() {
    const int h = sizeHint().height();
    if (h != height())
        setFixedHeight(h);
}

void CellSourceEdit::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    fitHeight(); // wrapped lines change with the width
}

void CellSourceEdit::keyPressEvent(QKeyEvent* event) {
    const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    if (enter && event->modifiers() == Qt::ShiftModifier) {
        Q_EMIT runAndAdvance();
        return;
    }
    if (enter && event->modifiers() == Qt::ControlModifier) {
        Q_EMIT runInPlace();
        return;
    }
    if (event->key() == Qt::Key_Backtab ||
        (event->key() == Qt::Key_Tab && event->modifiers() == Qt::ShiftModifier)) {
        Q_EMIT inspectRequested();
        return;
    }
    if (event->key() == Qt::Key_Tab && event->modifiers() == Qt::NoModifier && !isReadOnly()) {
        const QTextCursor cursor = textCursor();
        const QString before = cursor.block().text().left(cursor.positionInBlock());
        if (cursor.hasSelection() || before.trimmed().isEmpty() || before.back().isSpace())
            insertPlainText(QStringLiteral("    "));
        else
            Q_EMIT completionRequested();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

void CellSourceEdit::focusInEvent(QFocusEvent* event) {
    QPlainTextEdit::focusInEvent(event);
    Q_EMIT focused();
}

void CellSourceEdit::focusOutEvent(QFocusEvent* event) {
    QPlainTextEdit::focusOutEvent(event);
    // A context menu or a window switch is not leaving the cell.
    if (event->reason() != Qt::PopupFocusReason && event->reason() != Qt::ActiveWindowFocusReason)
        Q_EMIT focusLost();
}

} // namespace studio::widgets
