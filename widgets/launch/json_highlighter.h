// Colours JSON text: keys, strings, numbers and literals, in the light or dark theme's colours.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace studio::widgets {

class JsonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit JsonHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;

private:
    QRegularExpression m_string;
    QRegularExpression m_number;
    QRegularExpression m_literal;
    QTextCharFormat m_keyFormat;
    QTextCharFormat m_stringFormat;
    QTextCharFormat m_numberFormat;
    QTextCharFormat m_literalFormat;
};

} // namespace studio::widgets
