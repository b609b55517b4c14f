// The notebook's rich-text outputs, text/html and text/markdown, in a read-only browser as tall
// as its content. Tables get JupyterLab's look (a pandas DataFrame: thin borders, a shaded
// header, striped rows, numbers to the right). Nothing runs (Qt's rich text has no scripts)
// and nothing loads: an output from a notebook of any origin could name a file like /dev/zero,
// so only images inlined as data: URLs show. GUI thread only.
#pragma once

#include "widgets/notebook/auto_height_browser.h"

class QTextDocument;

namespace studio::widgets {

class RichOutputView : public AutoHeightBrowser {
    Q_OBJECT
public:
    enum class Format { Html, Markdown };
    RichOutputView(Format format, const QString& source, QWidget* parent = nullptr);

    Format format() const { return m_format; }
    QVariant loadResource(int type, const QUrl& name) override;

protected:
    void changeEvent(QEvent* event) override;

private:
    void render();

    Format m_format;
    QString m_source;
};

// Gives every table in doc JupyterLab's table look in the colours of palette.
void styleTables(QTextDocument* doc, const QPalette& palette);

} // namespace studio::widgets
