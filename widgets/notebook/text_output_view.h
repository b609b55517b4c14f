// A notebook output shown as text: stream output (grown chunk by chunk as the kernel sends it),
// an error's traceback, text/plain, JSON. ANSI colours become coloured text
// (models/notebook/ansi_text.h). Text up to kAutoHeightLines lines is painted by the view itself
// (TextOutputLayout), as tall as it is; longer text, or text the reader starts selecting, moves
// into a read-only QPlainTextEdit, which scrolls past kAutoHeightLines lines (following the end
// while the text grows, unless the reader scrolled up). Growing costs the new text, not the
// whole: the view only ever rewrites its last line (where a carriage return lands). Long text
// keeps its last kMaxShownLines lines on screen with a note of how many earlier lines it leaves
// out (the notebook document keeps them all). GUI thread only.
#pragma once

#include "models/notebook/ansi_text.h"
#include "widgets/common/described_widget.h"
#include "widgets/notebook/text_output_layout.h"

#include <QStringView>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTextCursor;

namespace studio::widgets {

class TextOutputView : public QWidget, public Describable {
    Q_OBJECT
public:
    static constexpr int kMaxShownLines = 5000;
    static constexpr int kAutoHeightLines = 40;

    // Error: on the error tint (stderr and errors, as JupyterLab shows them).
    enum class Tone { Normal, Error };
    explicit TextOutputView(Tone tone, QWidget* parent = nullptr);

    // Shows text (stream text resolved by models::resolveOverwrites; a final '\r' is not shown).
    void setText(QStringView text);
    // The text changed from the start of its last line on; tail is the new text from there
    // (models::appendResolved's text from the position it returned).
    void replaceLastLine(QStringView tail);

    // What the view shows: the kept lines, escape sequences removed.
    QString shownText() const;
    // Lines of the whole text, shown or not (a final newline ends a line, it starts none).
    qsizetype lineCount() const;
    // Earlier lines the view leaves out.
    qsizetype hiddenLines() const { return m_hidden; }
    Tone tone() const { return m_tone; }
    // Whether the text is in an editor (long text, or the reader selected) rather than painted.
    bool hasEditor() const { return m_view != nullptr; }
    // The editor, made now when the text is still painted.
    QPlainTextEdit* view();
    QString describe() const override; // for screen readers (Describable)

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    // Painted text (m_raw, m_painted) moves into an editor.
    void makeEditor();
    void editorReplaceLastLine(QStringView tail);
    void insertSpans(QTextCursor& cursor, const QVector<models::AnsiSpan>& spans) const;
    // Drops the oldest lines past kMaxShownLines (in batches), inside cursor's edit block.
    void trimToShownLines(QTextCursor& cursor);
    void updateNote();
    void fitHeight();
    void fitPaintedHeight();
    // A mouse event on the painted text goes on to the editor it made.
    void forward(QMouseEvent* event);
    QColor background() const;

    Tone m_tone;
    // Painted: the whole text and its layout.
    QString m_raw;
    TextOutputLayout m_painted;
    bool m_forwarding = false; // a press made the editor: the drag goes on to it
    // In an editor.
    QLabel* m_note = nullptr;
    QPlainTextEdit* m_view = nullptr;
    models::AnsiParser m_openLineState; // the ANSI state where the last line starts
    qsizetype m_newlines = 0;           // in the whole text
    qsizetype m_hidden = 0;
    bool m_openLineEmpty = true;
    bool m_scrolled = false; // taller than kAutoHeightLines: scrolls inside
};

} // namespace studio::widgets
