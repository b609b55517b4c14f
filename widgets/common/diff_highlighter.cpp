#include "widgets/common/diff_highlighter.h"

#include "widgets/common/theme.h"

namespace studio::widgets {

DiffHighlighter::DiffHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document) {
}

void DiffHighlighter::highlightBlock(const QString& text) {
    // A diff shown indented (mlstudio diff's text) is read from its first non-space character.
    const QString line = text.trimmed();
    const bool dark = darkThemeActive();
    QTextCharFormat f;
    if (line.startsWith(QLatin1String("+++")) || line.startsWith(QLatin1String("---"))) {
        f.setFontWeight(QFont::Bold);
    } else if (line.startsWith(QLatin1String("@@"))) {
        f.setForeground(dark ? QColor(0x79, 0xc0, 0xff) : QColor(0x05, 0x50, 0xae));
    } else if (line.startsWith(QLatin1Char('+'))) {
        f.setForeground(dark ? QColor(0x7e, 0xe7, 0x87) : QColor(0x11, 0x63, 0x29));
        f.setBackground(dark ? QColor(0x12, 0x3d, 0x1c) : QColor(0xe6, 0xff, 0xec));
    } else if (line.startsWith(QLatin1Char('-'))) {
        f.setForeground(dark ? QColor(0xff, 0xa1, 0x98) : QColor(0x82, 0x07, 0x1e));
        f.setBackground(dark ? QColor(0x49, 0x1a, 0x1e) : QColor(0xff, 0xeb, 0xe9));
    } else if (line.startsWith(QLatin1Char('[')) && line.endsWith(QLatin1Char(']'))) {
        f.setFontWeight(QFont::Bold); // a section of mlstudio diff: [code], [packages] ...
    } else {
        return;
    }
    setFormat(0, static_cast<int>(text.size()), f);
}

} // namespace studio::widgets
