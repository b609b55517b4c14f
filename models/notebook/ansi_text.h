// ANSI escape sequences in notebook text (stream output, IPython's coloured tracebacks,
// text/plain results) as JupyterLab renders them: SGR colours and attributes become styled
// spans, every other escape sequence and control character is dropped. Qt Core only. A parser
// carries its state from one piece of text to the next (a colour set before a chunk boundary
// holds after it); copying it takes a snapshot of that state. Not thread-safe.
#pragma once

#include <QString>
#include <QStringView>
#include <QVector>

#include <optional>

namespace studio::models {

// A colour as a sequence names it: the view's default, one of the 256 indexed colours (0-15
// follow the theme's palette), or a 24-bit one.
struct AnsiColor {
    enum class Kind : quint8 { Default, Indexed, Rgb };
    Kind kind = Kind::Default;
    int index = 0;   // Indexed: 0-255
    quint32 rgb = 0; // Rgb: 0xRRGGBB

    static AnsiColor indexed(int index) { return {Kind::Indexed, index, 0}; }
    static AnsiColor fromRgb(quint32 rgb) { return {Kind::Rgb, 0, rgb}; }
    bool operator==(const AnsiColor&) const = default;
};

struct AnsiStyle {
    AnsiColor foreground;
    AnsiColor background;
    bool bold = false;
    bool italic = false;
    bool underline = false;
    bool inverse = false;

    bool isPlain() const { return *this == AnsiStyle{}; }
    bool operator==(const AnsiStyle&) const = default;
};

struct AnsiSpan {
    QString text;
    AnsiStyle style;
    bool operator==(const AnsiSpan&) const = default;
};

class AnsiParser {
public:
    // The spans of text, read after what earlier calls read; neighbouring text of one style is
    // one span. An escape sequence cut off at the end waits for the next call.
    QVector<AnsiSpan> feed(QStringView text);
    // The style the next text gets.
    const AnsiStyle& style() const { return m_style; }
    // The default style and nothing waiting.
    void reset();

private:
    void applySgr(QStringView parameters);
    // The length of the escape sequence at text[at] (an ESC); 0 when it is cut off.
    qsizetype sequenceLength(QStringView text, qsizetype at) const;

    AnsiStyle m_style;
    QString m_pending; // the start of a sequence cut off at the end of the last text
};

// The text without escape sequences and control characters (newlines and tabs kept).
QString stripAnsi(QStringView text);

// 0xRRGGBB of an indexed colour: 0-15 from the theme's palette (JupyterLab's for the light
// theme), 16-231 the 6x6x6 cube, 232-255 the grey ramp. Out-of-range indexes give the
// palette's white.
quint32 ansiIndexedRgb(int index, bool dark);

// The colours a style is painted with, nullopt where the view's own colour stays. Bold makes
// colours 0-7 their bright twins 8-15, and inverse swaps foreground and background (the view's
// defaults taking each other's place), as JupyterLab does.
struct AnsiPaint {
    std::optional<quint32> foreground;
    std::optional<quint32> background;
};
AnsiPaint ansiPaint(const AnsiStyle& style, bool dark, quint32 defaultForeground,
                    quint32 defaultBackground);

} // namespace studio::models
