#include "widgets/launch/json_highlighter.h"

#include "widgets/common/theme.h"

namespace studio::widgets {

JsonHighlighter::JsonHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document)
    , m_string(QStringLiteral(R"("(?:[^"\\]|\\.)*")"))
    , m_number(QStringLiteral(R"((?<![\w."])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"))
    , m_literal(QStringLiteral(R"(\b(?:true|false|null)\b)")) {
    const bool dark = darkThemeActive();
    m_keyFormat.setForeground(dark ? QColor(0x7c, 0xb7, 0xff) : QColor(0x0b, 0x4f, 0xb3));
    m_stringFormat.setForeground(dark ? QColor(0x9c, 0xd6, 0x8f) : QColor(0x1f, 0x7a, 0x35));
    m_numberFormat.setForeground(dark ? QColor(0xf0, 0xb0, 0x6a) : QColor(0xb3, 0x5c, 0x00));
    m_literalFormat.setForeground(dark ? QColor(0xd2, 0x9b, 0xf5) : QColor(0x8a, 0x2b, 0xb5));
}

void JsonHighlighter::highlightBlock(const QString& text) {
    for (auto it = m_number.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(int(m.capturedStart()), int(m.capturedLength()), m_numberFormat);
    }
    for (auto it = m_literal.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(int(m.capturedStart()), int(m.capturedLength()), m_literalFormat);
    }
    // Strings last: a number inside a string stays a string. A string followed by ':' is a key.
    for (auto it = m_string.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        qsizetype after = m.capturedEnd();
        while (after < text.size() && text[after].isSpace())
            ++after;
        const bool key = after < text.size() && text[after] == QLatin1Char(':');
        setFormat(int(m.capturedStart()), int(m.capturedLength()),
                  key ? m_keyFormat : m_stringFormat);
    }
}

} // namespace studio::widgets
