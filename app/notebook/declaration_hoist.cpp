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

// One pass over a cell's source that copies it, rewriting its top-level declarations.
class Hoister {
public:
    explicit Hoister(const QString& src)
        : m_src(src)
        , m_n(src.size()) {
        m_out.reserve(m_n + 32);
    }

    QString run() {
        while (m_i < m_n) {
            const QChar c = m_src.at(m_i);
            if (copySpaceOrComment(c))
                continue;
            if (c == QLatin1Char('"') || c == QLatin1Char('\'') ||
                (c == QLatin1Char('/') && regexCanFollow(m_prevSignificant))) {
                copyQuoted(c);
                markValue();
                continue;
            }
            if (copyTemplatePart(c))
                continue;
            if (isIdentChar(c)) {
                copyWord();
                continue;
            }
            copyPunctuation(c);
        }
        return m_out;
    }

private:
    // After a string, a template, a regular expression or a word.
    void markValue() {
        m_prevSignificant = QLatin1Char('a');
        m_lineStart = false;
    }

    // Newlines, other white space and comments, copied as they are.
    bool copySpaceOrComment(QChar c) {
        if (c == QLatin1Char('\n'))
            m_lineStart = true;
        if (c.isSpace()) {
            m_out += c;
            ++m_i;
            return true;
        }
        if (c != QLatin1Char('/') || m_i + 1 >= m_n)
            return false;
        if (m_src.at(m_i + 1) == QLatin1Char('/')) {
            while (m_i < m_n && m_src.at(m_i) != QLatin1Char('\n'))
                m_out += m_src.at(m_i++);
            return true;
        }
        if (m_src.at(m_i + 1) == QLatin1Char('*')) {
            const qsizetype end = m_src.indexOf(QStringLiteral("*/"), m_i + 2);
            const qsizetype stop = end < 0 ? m_n : end + 2;
            m_out += m_src.mid(m_i, stop - m_i);
            m_i = stop;
            return true;
        }
        return false;
    }

    // A string or a regular expression, up to its closing quote (a string also ends at a newline).
    void copyQuoted(QChar quote) {
        m_out += m_src.at(m_i++);
        while (m_i < m_n) {
            const QChar c = m_src.at(m_i);
            m_out += c;
            ++m_i;
            if (c == QLatin1Char('\\') && m_i < m_n) {
                m_out += m_src.at(m_i++);
                continue;
            }
            if (c == quote || (c == QLatin1Char('\n') && quote != QLatin1Char('/')))
                break;
            if (quote == QLatin1Char('/') && c == QLatin1Char('[')) { // a class: '/' inside is text
                while (m_i < m_n && m_src.at(m_i) != QLatin1Char(']')) {
                    if (m_src.at(m_i) == QLatin1Char('\\') && m_i + 1 < m_n)
                        m_out += m_src.at(m_i++);
                    m_out += m_src.at(m_i++);
                }
            }
        }
    }

    // A template literal's text runs from its opening backtick, or from the end of one of its
    // ${...} substitutions, to the next substitution or its closing backtick.
    bool copyTemplatePart(QChar c) {
        const bool closesSubstitution = c == QLatin1Char('}') && !m_templateDepth.isEmpty() &&
                                        m_templateDepth.last() == m_depth - 1;
        if (c != QLatin1Char('`') && !closesSubstitution)
            return false;
        if (closesSubstitution) {
            m_templateDepth.removeLast();
            --m_depth;
        }
        m_out += c;
        ++m_i;
        copyTemplateText();
        markValue();
        return true;
    }

    // Copies template text up to its end or to a "${", which opens a substitution.
    void copyTemplateText() {
        while (m_i < m_n) {
            const QChar c = m_src.at(m_i);
            if (c == QLatin1Char('\\') && m_i + 1 < m_n) {
                m_out += c;
                m_out += m_src.at(m_i + 1);
                m_i += 2;
                continue;
            }
            if (c == QLatin1Char('`')) {
                m_out += c;
                ++m_i;
                return;
            }
            if (c == QLatin1Char('$') && m_i + 1 < m_n && m_src.at(m_i + 1) == QLatin1Char('{')) {
                m_out += QStringLiteral("${");
                m_i += 2;
                m_templateDepth.append(m_depth);
                ++m_depth;
                return;
            }
            m_out += c;
            ++m_i;
        }
    }

    void copyWord() {
        qsizetype end = m_i;
        while (end < m_n && isIdentChar(m_src.at(end)))
            ++end;
        const QString word = m_src.mid(m_i, end - m_i);
        const bool statementStart =
            m_depth == 0 && (m_prevSignificant.isNull() || m_prevSignificant == QLatin1Char(';') ||
                             m_prevSignificant == QLatin1Char('}') || m_lineStart);
        const bool afterDot = m_prevSignificant == QLatin1Char('.');
        const QString replacement =
            statementStart && !afterDot ? declarationRewrite(word, end) : QString();
        m_out += replacement.isEmpty() ? word : replacement;
        m_i = end;
        markValue();
    }

    // The rewrite of a word that starts a top-level statement, "" to keep it: `let` alone can
    // be a name (let = 1), so a declaration needs a binding after it; `class extends` is an
    // expression.
    QString declarationRewrite(const QString& word, qsizetype end) const {
        qsizetype k = end;
        while (k < m_n && m_src.at(k).isSpace())
            ++k;
        if ((word == QStringLiteral("let") || word == QStringLiteral("const")) && k < m_n &&
            (isIdentChar(m_src.at(k)) || m_src.at(k) == QLatin1Char('{') ||
             m_src.at(k) == QLatin1Char('[')))
            return QStringLiteral("var");
        if (word != QStringLiteral("class"))
            return {};
        qsizetype nameEnd = k;
        while (nameEnd < m_n && isIdentChar(m_src.at(nameEnd)))
            ++nameEnd;
        const QString name = m_src.mid(k, nameEnd - k);
        if (name.isEmpty() || name == QStringLiteral("extends"))
            return {};
        return QStringLiteral("var ") + name + QStringLiteral(" = class");
    }

    void copyPunctuation(QChar c) {
        if (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{'))
            ++m_depth;
        else if ((c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}')) &&
                 m_depth > 0)
            --m_depth;
        m_out += c;
        ++m_i;
        m_prevSignificant = c;
        m_lineStart = false;
    }

    const QString& m_src;
    const qsizetype m_n;
    QString m_out;
    qsizetype m_i = 0;
    int m_depth = 0;              // (, [ and { outside template substitutions
    QVector<int> m_templateDepth; // brace depth at each open ${ ... }
    QChar m_prevSignificant;      // last non-space character outside comments
    bool m_lineStart = true;      // a newline since m_prevSignificant
};

} // namespace

QString hoistDeclarations(const QString& src) {
    return Hoister(src).run();
}

} // namespace studio::notebook
