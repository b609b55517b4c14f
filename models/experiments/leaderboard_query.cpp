#include "models/experiments/leaderboard_query.h"

#include "models/experiments/leaderboard_format.h"

#include <QRegularExpression>

#include <algorithm>
#include <vector>

namespace studio::models {

namespace {

enum class Op { Eq, Ne, Lt, Le, Gt, Ge, Contains, NotContains };

enum class Tok { End, Error, Word, Quoted, Number, Op, LParen, RParen, And, Or, Not };

struct Token {
    Tok kind = Tok::End;
    int pos = 1;  // 1-based
    QString raw;  // as written
    QString text; // unquoted value
    double number = 0;
    Op op = Op::Eq;
};

bool isDelimiter(QChar c) {
    static const QString delimiters = QStringLiteral("()\"'=!<>~&|");
    return c.isSpace() || delimiters.contains(c);
}

// Splits the text into tokens; a lexical error becomes a final Error token carrying the message,
// so the parser reports whichever problem comes first.
// Splits a query into tokens; an error token ends the list where the text cannot be read.
class Lexer {
public:
    explicit Lexer(const QString& s)
        : m_s(s)
        , m_n(s.size()) {}

    std::vector<Token> run() {
        while (m_i < m_n && !m_failed) {
            const QChar c = m_s.at(m_i);
            if (c.isSpace())
                ++m_i;
            else if (c == QLatin1Char('(') || c == QLatin1Char(')'))
                single(c == QLatin1Char('(') ? Tok::LParen : Tok::RParen);
            else if (c == QLatin1Char('"') || c == QLatin1Char('\''))
                quoted(c);
            else if (c == QLatin1Char('=') || c == QLatin1Char('<') || c == QLatin1Char('>') ||
                     c == QLatin1Char('~') || c == QLatin1Char('!'))
                comparison(c);
            else if (c == QLatin1Char('&') || c == QLatin1Char('|'))
                logical(c);
            else
                word(c);
        }
        if (!m_failed) {
            Token end;
            end.pos = static_cast<int>(m_n) + 1;
            m_out.push_back(end);
        }
        return std::move(m_out);
    }

private:
    Token* push(Tok kind, qsizetype start, qsizetype end) {
        Token t;
        t.kind = kind;
        t.pos = static_cast<int>(start) + 1;
        t.raw = m_s.mid(start, end - start);
        t.text = t.raw;
        m_out.push_back(t);
        m_i = end;
        return &m_out.back();
    }

    void fail(qsizetype at, const QString& message) {
        Token t;
        t.kind = Tok::Error;
        t.pos = static_cast<int>(at) + 1;
        t.text = message;
        m_out.push_back(t);
        m_failed = true;
    }

    QChar next() const { return m_i + 1 < m_n ? m_s.at(m_i + 1) : QChar(); }

    void single(Tok kind) { push(kind, m_i, m_i + 1); }

    // A string in the given quotes; a backslash takes the next character as it is.
    void quoted(QChar quote) {
        QString value;
        for (qsizetype j = m_i + 1; j < m_n; ++j) {
            const QChar d = m_s.at(j);
            if (d == QLatin1Char('\\') && j + 1 < m_n) {
                value += m_s.at(++j);
            } else if (d == quote) {
                push(Tok::Quoted, m_i, j + 1)->text = value;
                return;
            } else {
                value += d;
            }
        }
        fail(m_i, QStringLiteral("unterminated string: missing the closing ") + quote);
    }

    // = == < <= > >= ~ != !~, or a lone ! (not).
    void comparison(QChar c) {
        const bool eq = next() == QLatin1Char('=');
        Op op = Op::Eq;
        qsizetype len = eq && c != QLatin1Char('~') ? 2 : 1;
        if (c == QLatin1Char('<')) {
            op = eq ? Op::Le : Op::Lt;
        } else if (c == QLatin1Char('>')) {
            op = eq ? Op::Ge : Op::Gt;
        } else if (c == QLatin1Char('~')) {
            op = Op::Contains;
        } else if (c == QLatin1Char('!')) {
            if (!eq && next() != QLatin1Char('~')) {
                single(Tok::Not);
                return;
            }
            op = eq ? Op::Ne : Op::NotContains;
            len = 2;
        }
        push(Tok::Op, m_i, m_i + len)->op = op;
    }

    // && and ||; a single & or | is an error that says which word to write.
    void logical(QChar c) {
        if (next() != c) {
            fail(m_i, QStringLiteral("unexpected '") + c + QStringLiteral("' (write '") +
                          (c == QLatin1Char('&') ? QStringLiteral("and") : QStringLiteral("or")) +
                          QStringLiteral("')"));
            return;
        }
        push(c == QLatin1Char('&') ? Tok::And : Tok::Or, m_i, m_i + 2);
    }

    // A bare word: and / or / not, a number, or a field name or value.
    void word(QChar c) {
        qsizetype j = m_i;
        while (j < m_n && !isDelimiter(m_s.at(j)))
            ++j;
        Token* t = push(Tok::Word, m_i, j);
        const QString lower = t->raw.toLower();
        if (lower == QLatin1String("and")) {
            t->kind = Tok::And;
        } else if (lower == QLatin1String("or")) {
            t->kind = Tok::Or;
        } else if (lower == QLatin1String("not")) {
            t->kind = Tok::Not;
        } else if (c.isDigit() || c == QLatin1Char('.') || c == QLatin1Char('-') ||
                   c == QLatin1Char('+')) {
            bool ok = false;
            const double v = t->raw.toDouble(&ok);
            if (ok) {
                t->kind = Tok::Number;
                t->number = v;
            }
        }
    }

    const QString& m_s;
    const qsizetype m_n;
    qsizetype m_i = 0;
    bool m_failed = false;
    std::vector<Token> m_out;
};

std::vector<Token> tokenize(const QString& s) {
    return Lexer(s).run();
}

QString quoted(const QString& s) {
    return QLatin1Char('\'') + s + QLatin1Char('\'');
}

struct ParseFailure {
    QueryError error;
};

} // namespace

struct LeaderboardQuery::Node {
    enum class Kind { And, Or, Not, Compare };
    Kind kind = Kind::Compare;
    std::shared_ptr<const Node> a, b;
    int field = -1;
    Op op = Op::Eq;
    bool numeric = false; // the literal is a number
    double number = 0;
    QString text;
};

namespace {

using NodePtr = std::shared_ptr<const LeaderboardQuery::Node>;
using Node = LeaderboardQuery::Node;

class Parser {
public:
    Parser(std::vector<Token> tokens, const QStringList& fields)
        : m_tokens(std::move(tokens))
        , m_fields(fields) {}

    NodePtr parse() {
        if (peek().kind == Tok::End)
            return nullptr;
        NodePtr root = parseOr();
        if (peek().kind == Tok::RParen)
            fail(peek().pos, QStringLiteral("unexpected ')' (no '(' to close)"));
        if (peek().kind != Tok::End)
            expected(QStringLiteral("'and' or 'or'"));
        return root;
    }

private:
    const Token& peek() const { return m_tokens[m_at]; }
    const Token& take() { return m_tokens[m_at++]; }

    [[noreturn]] void fail(int pos, const QString& message) {
        throw ParseFailure{QueryError{pos, message}};
    }

    // "expected X after 'prev'", with what was found instead when there is something.
    [[noreturn]] void expected(const QString& what, const QString& hint = {}) {
        const Token& t = peek();
        if (t.kind == Tok::Error)
            fail(t.pos, t.text);
        QString message = QStringLiteral("expected ") + what;
        if (m_at > 0)
            message += QStringLiteral(" after ") + quoted(m_tokens[m_at - 1].raw);
        if (t.kind != Tok::End)
            message += QStringLiteral(", found ") + quoted(t.raw);
        fail(t.pos, message + hint);
    }

    NodePtr combine(Node::Kind kind, NodePtr a, NodePtr b) {
        auto n = std::make_shared<Node>();
        n->kind = kind;
        n->a = std::move(a);
        n->b = std::move(b);
        return n;
    }

    NodePtr parseOr() {
        NodePtr left = parseAnd();
        while (peek().kind == Tok::Or) {
            take();
            left = combine(Node::Kind::Or, left, parseAnd());
        }
        return left;
    }

    NodePtr parseAnd() {
        NodePtr left = parseNot();
        while (peek().kind == Tok::And) {
            take();
            left = combine(Node::Kind::And, left, parseNot());
        }
        return left;
    }

    NodePtr parseNot() {
        if (peek().kind == Tok::Not) {
            take();
            return combine(Node::Kind::Not, parseNot(), nullptr);
        }
        return parsePrimary();
    }

    NodePtr parsePrimary() {
        if (peek().kind == Tok::LParen) {
            const int open = take().pos;
            NodePtr inner = parseOr();
            if (peek().kind == Tok::End)
                fail(peek().pos,
                     QStringLiteral("missing ')' to close the '(' at ") + QString::number(open));
            if (peek().kind != Tok::RParen)
                expected(QStringLiteral("')' to close the '(' at ") + QString::number(open));
            take();
            return inner;
        }
        if (peek().kind != Tok::Word && peek().kind != Tok::Quoted && peek().kind != Tok::Number)
            expected(QStringLiteral("a field name"));
        const Token& name = take();
        auto n = std::make_shared<Node>();
        n->field = resolve(name);
        if (peek().kind != Tok::Op) {
            const bool word = peek().kind == Tok::Word || peek().kind == Tok::Number;
            expected(QStringLiteral("an operator (= != < <= > >= ~ !~)"),
                     word ? QStringLiteral(" (quote names that have spaces: \"a b\")") : QString());
        }
        n->op = take().op;
        const Tok v = peek().kind;
        if (v != Tok::Word && v != Tok::Quoted && v != Tok::Number)
            expected(QStringLiteral("a value"));
        const Token& value = take();
        n->numeric = value.kind == Tok::Number;
        n->number = value.number;
        n->text = value.text;
        return n;
    }

    int resolve(const Token& name) {
        for (int i = 0; i < m_fields.size(); ++i)
            if (m_fields[i].compare(name.text, Qt::CaseInsensitive) == 0)
                return i;
        if (name.text.startsWith(QLatin1String("tag."), Qt::CaseInsensitive) &&
            name.text.size() > 4)
            return -1; // a tag no row has: reads as missing
        QString message = QStringLiteral("unknown field \"") + name.text + QLatin1Char('"');
        const QString hint = closestName(name.text, m_fields);
        if (!hint.isEmpty())
            message += QStringLiteral(" (did you mean \"") + hint + QStringLiteral("\"?)");
        fail(name.pos, message);
    }

    std::vector<Token> m_tokens;
    const QStringList& m_fields;
    std::size_t m_at = 0;
};

bool compare(const Node& n, const QueryValue& v) {
    if (!v.present)
        return n.op == Op::Ne || n.op == Op::NotContains;
    if (n.op == Op::Contains || n.op == Op::NotContains)
        return v.text.contains(n.text, Qt::CaseInsensitive) == (n.op == Op::Contains);
    int c = 0;
    if (n.numeric && !std::isnan(v.number)) {
        if (v.number == n.number)
            c = 0;
        else
            c = v.number < n.number ? -1 : 1;
    } else {
        c = QString::compare(v.text, n.text, Qt::CaseInsensitive);
    }
    switch (n.op) {
    case Op::Eq:
        return c == 0;
    case Op::Ne:
        return c != 0;
    case Op::Lt:
        return c < 0;
    case Op::Le:
        return c <= 0;
    case Op::Gt:
        return c > 0;
    case Op::Ge:
        return c >= 0;
    default:
        return false;
    }
}

bool evaluate(const Node& n, const std::function<QueryValue(int)>& valueOf) {
    switch (n.kind) {
    case Node::Kind::And:
        return evaluate(*n.a, valueOf) && evaluate(*n.b, valueOf);
    case Node::Kind::Or:
        return evaluate(*n.a, valueOf) || evaluate(*n.b, valueOf);
    case Node::Kind::Not:
        return !evaluate(*n.a, valueOf);
    case Node::Kind::Compare:
        return compare(n, valueOf(n.field));
    }
    return false;
}

void collectFields(const Node& n, QList<int>& out) {
    if (n.kind == Node::Kind::Compare) {
        if (n.field >= 0 && !out.contains(n.field))
            out.push_back(n.field);
        return;
    }
    collectFields(*n.a, out);
    if (n.b)
        collectFields(*n.b, out);
}

int editDistance(const QString& a, const QString& b) {
    std::vector<int> prev(static_cast<std::size_t>(b.size()) + 1), cur(prev.size());
    for (std::size_t j = 0; j < prev.size(); ++j)
        prev[j] = static_cast<int>(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        cur[0] = static_cast<int>(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int cost = a.at(i - 1) == b.at(j - 1) ? 0 : 1;
            const auto uj = static_cast<std::size_t>(j);
            cur[uj] = std::min({prev[uj] + 1, cur[uj - 1] + 1, prev[uj - 1] + cost});
        }
        std::swap(prev, cur);
    }
    return prev.back();
}

} // namespace

QString QueryError::text() const {
    return QStringLiteral("at ") + QString::number(position) + QStringLiteral(": ") + message;
}

LeaderboardQuery::LeaderboardQuery() = default;

LeaderboardQuery::Result LeaderboardQuery::compile(const QString& text, const QStringList& fields) {
    Result result;
    try {
        Parser parser(tokenize(text), fields);
        result.query.m_root = parser.parse();
    } catch (const ParseFailure& f) {
        result.error = f.error;
    }
    return result;
}

bool LeaderboardQuery::matches(const std::function<QueryValue(int)>& valueOf) const {
    return !m_root || evaluate(*m_root, valueOf);
}

QList<int> LeaderboardQuery::fieldsRead() const {
    QList<int> out;
    if (m_root)
        collectFields(*m_root, out);
    return out;
}

QString quoteForQuery(const QString& s) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z_][A-Za-z0-9_.:/-]*$"));
    const QString lower = s.toLower();
    if (plain.match(s).hasMatch() && lower != QLatin1String("and") &&
        lower != QLatin1String("or") && lower != QLatin1String("not"))
        return s;
    QString escaped = s;
    escaped.replace(QLatin1String("\\"), QLatin1String("\\\\"));
    escaped.replace(QLatin1String("\""), QLatin1String("\\\""));
    return QLatin1Char('"') + escaped + QLatin1Char('"');
}

QString equalsClause(const QString& field, double number) {
    return quoteForQuery(field) + QStringLiteral(" = ") + formatExactNumber(number);
}

QString equalsClause(const QString& field, const QString& text) {
    return quoteForQuery(field) + QStringLiteral(" = ") + quoteForQuery(text);
}

QString andClause(const QString& filter, const QString& clause) {
    const QString current = filter.trimmed();
    if (current.isEmpty())
        return clause;
    static const QRegularExpression orWord(QStringLiteral("\\bor\\b|\\|\\|"),
                                           QRegularExpression::CaseInsensitiveOption);
    if (current.contains(orWord))
        return QLatin1Char('(') + current + QStringLiteral(") and ") + clause;
    return current + QStringLiteral(" and ") + clause;
}

QString closestName(const QString& name, const QStringList& candidates) {
    const QString lower = name.toLower();
    const int limit = std::max(1, static_cast<int>(lower.size()) / 3);
    int best = limit + 1;
    QString found;
    for (const QString& c : candidates) {
        const int d = editDistance(lower, c.toLower());
        if (d < best) {
            best = d;
            found = c;
        }
    }
    if (!found.isEmpty() || lower.size() < 3)
        return found;
    for (const QString& c : candidates)
        if (c.contains(lower, Qt::CaseInsensitive))
            return c;
    return {};
}

} // namespace studio::models
