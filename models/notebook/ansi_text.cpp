#include "models/notebook/ansi_text.h"

#include <QVarLengthArray>

#include <algorithm>
#include <array>

namespace studio::models {

namespace {

constexpr QChar kEscape = QChar(0x1b);
// An unterminated OSC (a window title, a hyperlink) longer than this is dropped rather than
// held forever.
constexpr qsizetype kMaxPending = 4096;

// Characters a view cannot show: C0 controls other than newline and tab, and DEL. Escape is one
// of them; carriage returns and backspaces were applied before (stream_text.h) or mean nothing.
bool isControl(QChar c) {
    const char16_t u = c.unicode();
    return (u < 0x20 && u != u'\n' && u != u'\t') || u == 0x7f;
}

bool inRange(QChar c, char16_t lo, char16_t hi) {
    return c.unicode() >= lo && c.unicode() <= hi;
}

// JupyterLab's light palette (the classic Notebook's), then a dark one readable on a dark page.
constexpr std::array<quint32, 16> kLightPalette = {
    0x3e424d, 0xe75c58, 0x00a250, 0xddb62b, 0x208ffb, 0xd160c4, 0x60c6c8, 0xc5c1b4,
    0x282c36, 0xb22b31, 0x007427, 0xb27d12, 0x0065ca, 0xa03196, 0x258f8f, 0xa1a6b2};
constexpr std::array<quint32, 16> kDarkPalette = {
    0x6e7681, 0xff7b72, 0x3fb950, 0xd29922, 0x58a6ff, 0xbc8cff, 0x39c5cf, 0xb1bac4,
    0x8b949e, 0xffa198, 0x56d364, 0xe3b341, 0x79c0ff, 0xd2a8ff, 0x56d4dd, 0xf0f6fc};

quint32 rgb(int r, int g, int b) {
    return static_cast<quint32>((std::clamp(r, 0, 255) << 16) | (std::clamp(g, 0, 255) << 8) |
                                std::clamp(b, 0, 255));
}

// SGR parameters: numbers separated by ';' (or ':' in the sub-parameter form of 38 and 48); an
// empty one is 0. False for a private sequence ('?', '<', ...), which sets no style.
bool sgrNumbers(QStringView parameters, QVarLengthArray<int, 16>& out) {
    int current = -1;
    for (QChar c : parameters) {
        if (c.isDigit()) {
            current = std::min((current < 0 ? 0 : current) * 10 + c.digitValue(), 1 << 20);
        } else if (c == u';' || c == u':') {
            out.append(std::max(current, 0));
            current = -1;
        } else {
            return false;
        }
    }
    out.append(std::max(current, 0));
    return true;
}

} // namespace

void AnsiParser::reset() {
    m_style = AnsiStyle{};
    m_pending.clear();
}

qsizetype AnsiParser::sequenceLength(QStringView text, qsizetype at) const {
    const qsizetype n = text.size();
    if (at + 1 >= n)
        return 0;
    const QChar kind = text[at + 1];
    if (kind == u'[') { // CSI: parameter and intermediate bytes, then a final byte
        for (qsizetype i = at + 2; i < n; ++i) {
            if (inRange(text[i], 0x40, 0x7e))
                return i - at + 1;
            if (!inRange(text[i], 0x20, 0x3f) || i - at > 256)
                return i - at; // broken: drop what came so far, keep the character
        }
        return 0;
    }
    if (kind == u']') { // OSC: up to BEL or ESC backslash
        for (qsizetype i = at + 2; i < n; ++i) {
            if (text[i].unicode() == 0x07)
                return i - at + 1;
            if (text[i] == kEscape) {
                if (i + 1 >= n)
                    return 0;
                return text[i + 1] == u'\\' ? i - at + 2 : i - at;
            }
        }
        return n - at > kMaxPending ? n - at : 0;
    }
    if (inRange(kind, 0x20, 0x2f)) { // ESC ( B and the like: intermediates, then a final
        qsizetype i = at + 1;
        while (i < n && inRange(text[i], 0x20, 0x2f))
            ++i;
        return i < n ? i - at + 1 : 0;
    }
    return 2;
}

QVector<AnsiSpan> AnsiParser::feed(QStringView text) {
    QString joined;
    QStringView in = text;
    if (!m_pending.isEmpty()) {
        joined = m_pending + text;
        m_pending.clear();
        in = joined;
    }
    QVector<AnsiSpan> spans;
    QString run;
    const auto flush = [&] {
        if (run.isEmpty())
            return;
        if (!spans.isEmpty() && spans.last().style == m_style)
            spans.last().text += run;
        else
            spans.append({run, m_style});
        run.clear();
    };
    const qsizetype n = in.size();
    qsizetype i = 0;
    while (i < n) {
        qsizetype j = i;
        while (j < n && !isControl(in[j]))
            ++j;
        run += in.mid(i, j - i);
        if (j >= n)
            break;
        if (in[j] != kEscape) {
            i = j + 1;
            continue;
        }
        const qsizetype length = sequenceLength(in, j);
        if (length == 0) {
            m_pending = in.mid(j).toString();
            break;
        }
        if (in[j + 1] == u'[' && in[j + length - 1] == u'm') {
            flush();
            applySgr(in.mid(j + 2, length - 3));
        }
        i = j + length;
    }
    flush();
    return spans;
}

void AnsiParser::applySgr(QStringView parameters) {
    QVarLengthArray<int, 16> p;
    if (!sgrNumbers(parameters, p))
        return;
    AnsiStyle& s = m_style;
    for (qsizetype k = 0; k < p.size(); ++k) {
        const int code = p[k];
        if (code == 38 || code == 48) {
            AnsiColor& target = code == 38 ? s.foreground : s.background;
            if (k + 2 < p.size() && p[k + 1] == 5) {
                if (p[k + 2] <= 255)
                    target = AnsiColor::indexed(p[k + 2]);
                k += 2;
            } else if (k + 4 < p.size() && p[k + 1] == 2) {
                target = AnsiColor::fromRgb(rgb(p[k + 2], p[k + 3], p[k + 4]));
                k += 4;
            } else {
                return; // an extended colour without its numbers ends the sequence
            }
            continue;
        }
        if (code >= 30 && code <= 37)
            s.foreground = AnsiColor::indexed(code - 30);
        else if (code >= 40 && code <= 47)
            s.background = AnsiColor::indexed(code - 40);
        else if (code >= 90 && code <= 97)
            s.foreground = AnsiColor::indexed(code - 90 + 8);
        else if (code >= 100 && code <= 107)
            s.background = AnsiColor::indexed(code - 100 + 8);
        else if (code == 0)
            s = AnsiStyle{};
        else if (code == 1)
            s.bold = true;
        else if (code == 3)
            s.italic = true;
        else if (code == 4)
            s.underline = true;
        else if (code == 7)
            s.inverse = true;
        else if (code == 21 || code == 22)
            s.bold = false;
        else if (code == 23)
            s.italic = false;
        else if (code == 24)
            s.underline = false;
        else if (code == 27)
            s.inverse = false;
        else if (code == 39)
            s.foreground = AnsiColor{};
        else if (code == 49)
            s.background = AnsiColor{};
        // Anything else (faint, blink, conceal, fonts) changes nothing, as in JupyterLab.
    }
}

QString stripAnsi(QStringView text) {
    AnsiParser parser;
    QString out;
    out.reserve(text.size());
    for (const AnsiSpan& span : parser.feed(text))
        out += span.text;
    return out;
}

quint32 ansiIndexedRgb(int index, bool dark) {
    const auto& palette = dark ? kDarkPalette : kLightPalette;
    if (index < 0 || index > 255)
        return palette[7];
    if (index < 16)
        return palette[static_cast<std::size_t>(index)];
    if (index < 232) {
        static constexpr int kLevels[] = {0, 95, 135, 175, 215, 255};
        const int i = index - 16;
        return rgb(kLevels[i / 36], kLevels[(i / 6) % 6], kLevels[i % 6]);
    }
    const int grey = 8 + 10 * (index - 232);
    return rgb(grey, grey, grey);
}

AnsiPaint ansiPaint(const AnsiStyle& style, bool dark, quint32 defaultForeground,
                    quint32 defaultBackground) {
    const auto resolve = [&](const AnsiColor& c, bool foreground) -> std::optional<quint32> {
        switch (c.kind) {
        case AnsiColor::Kind::Default:
            return std::nullopt;
        case AnsiColor::Kind::Indexed:
            return ansiIndexedRgb(foreground && style.bold && c.index < 8 ? c.index + 8 : c.index,
                                  dark);
        case AnsiColor::Kind::Rgb:
            break;
        }
        return c.rgb;
    };
    AnsiPaint paint{resolve(style.foreground, true), resolve(style.background, false)};
    if (style.inverse)
        paint = AnsiPaint{paint.background.value_or(defaultBackground),
                          paint.foreground.value_or(defaultForeground)};
    return paint;
}

} // namespace studio::models
