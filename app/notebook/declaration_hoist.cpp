#include "app/notebook/declaration_hoist.h"

#include <QVector>

namespace studio::notebook {

namespace {

bool isIdentChar(QChar c) {
    return c.isLetterOrNumber() || c == QLatin1Char('_') || c == QLatin1Char('$');
}

// Whether a '/' after this character starts a regular expression rather than a division.
bool regexCanFollow(QChar prev) {
    return prev.isNull() || QStringLiteral("(,=:[!&|?{};+-*%<>~^").contains(prev);
}

} // namespace

QString hoistDeclarations(const QString& src) {
    QString out;
    out.reserve(src.size() + 32);
    int depth = 0;              // (, [ and { outside template substitutions
    QVector<int> templateDepth; // brace depth at each open ${ ... }
    QChar prevSignificant;      // last non-space character outside comments
    bool lineStart = true;      // a newline since prevSignificant
    const qsizetype n = src.size();
    qsizetype i = 0;

    auto copyQuoted = [&](QChar quote) {
        out += src.at(i++);
        while (i < n) {
            const QChar c = src.at(i);
            out += c;
            ++i;
            if (c == QLatin1Char('\\') && i < n) {
                out += src.at(i++);
                continue;
            }
            if (c == quote || (c == QLatin1Char('\n') && quote != QLatin1Char('/')))
                break;
            if (quote == QLatin1Char('/') && c == QLatin1Char('[')) { // a class: '/' inside is text
                while (i < n && src.at(i) != QLatin1Char(']')) {
                    if (src.at(i) == QLatin1Char('\\') && i + 1 < n)
                        out += src.at(i++);
                    out += src.at(i++);
                }
            }
        }
    };
    // Copies template text up to its end or to a "${", which opens a substitution.
    auto copyTemplateText = [&] {
        while (i < n) {
            const QChar c = src.at(i);
            if (c == QLatin1Char('\\') && i + 1 < n) {
                out += c;
                out += src.at(i + 1);
                i += 2;
                continue;
            }
            if (c == QLatin1Char('`')) {
                out += c;
                ++i;
                return;
            }
            if (c == QLatin1Char('$') && i + 1 < n && src.at(i + 1) == QLatin1Char('{')) {
                out += QStringLiteral("${");
                i += 2;
                templateDepth.append(depth);
                ++depth;
                return;
            }
            out += c;
            ++i;
        }
    };

    while (i < n) {
        const QChar c = src.at(i);
        if (c == QLatin1Char('\n')) {
            lineStart = true;
            out += c;
            ++i;
            continue;
        }
        if (c.isSpace()) {
            out += c;
            ++i;
            continue;
        }
        if (c == QLatin1Char('/') && i + 1 < n && src.at(i + 1) == QLatin1Char('/')) {
            while (i < n && src.at(i) != QLatin1Char('\n'))
                out += src.at(i++);
            continue;
        }
        if (c == QLatin1Char('/') && i + 1 < n && src.at(i + 1) == QLatin1Char('*')) {
            const qsizetype end = src.indexOf(QStringLiteral("*/"), i + 2);
            const qsizetype stop = end < 0 ? n : end + 2;
            out += src.mid(i, stop - i);
            i = stop;
            continue;
        }
        if (c == QLatin1Char('"') || c == QLatin1Char('\'') ||
            (c == QLatin1Char('/') && regexCanFollow(prevSignificant))) {
            copyQuoted(c);
            prevSignificant = QLatin1Char('a'); // a value
            lineStart = false;
            continue;
        }
        // A template literal's text runs from its opening backtick, or from the end of one of
        // its ${...} substitutions, to the next substitution or its closing backtick.
        const bool closesSubstitution =
            c == QLatin1Char('}') && !templateDepth.isEmpty() && templateDepth.last() == depth - 1;
        if (c == QLatin1Char('`') || closesSubstitution) {
            if (closesSubstitution) {
                templateDepth.removeLast();
                --depth;
            }
            out += c;
            ++i;
            copyTemplateText();
            prevSignificant = QLatin1Char('a');
            lineStart = false;
            continue;
        }
        if (isIdentChar(c)) {
            qsizetype end = i;
            while (end < n && isIdentChar(src.at(end)))
                ++end;
            const QString word = src.mid(i, end - i);
            const bool statementStart =
                depth == 0 && (prevSignificant.isNull() || prevSignificant == QLatin1Char(';') ||
                               prevSignificant == QLatin1Char('}') || lineStart);
            const bool afterDot = prevSignificant == QLatin1Char('.');
            // The declaration's rewrite, "" to keep the word: `let` alone can be a name
            // (let = 1), so a declaration needs a binding after it; `class extends` is an
            // expression.
            QString replacement;
            if (statementStart && !afterDot) {
                qsizetype k = end;
                while (k < n && src.at(k).isSpace())
                    ++k;
                if ((word == QStringLiteral("let") || word == QStringLiteral("const")) && k < n &&
                    (isIdentChar(src.at(k)) || src.at(k) == QLatin1Char('{') ||
                     src.at(k) == QLatin1Char('['))) {
                    replacement = QStringLiteral("var");
                } else if (word == QStringLiteral("class")) {
                    qsizetype nameEnd = k;
                    while (nameEnd < n && isIdentChar(src.at(nameEnd)))
                        ++nameEnd;
                    const QString name = src.mid(k, nameEnd - k);
                    if (!name.isEmpty() && name != QStringLiteral("extends"))
                        replacement = QStringLiteral("var ") + name + QStringLiteral(" = class");
                }
            }
            out += replacement.isEmpty() ? word : replacement;
            i = end;
            prevSignificant = QLatin1Char('a');
            lineStart = false;
            continue;
        }
        if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{'))
            ++depth;
        else if ((c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}')) &&
                 depth > 0)
            --depth;
        out += c;
        ++i;
        prevSignificant = c;
        lineStart = false;
    }
    return out;
}

} // namespace studio::notebook
