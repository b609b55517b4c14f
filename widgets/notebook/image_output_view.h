// An image output of a notebook: a PNG, JPEG or GIF (base64 in the output, as matplotlib's
// inline backend sends it) or an SVG drawing, at the size its metadata asks for (its own size
// otherwise), scaled down to the cell's width as JupyterLab does, on a plain background when
// metadata.needs_background asks for one. A raster is decoded when first painted: a long notebook
// opens without decoding the figures below the fold. GUI thread only.
#pragma once

#include "widgets/common/described_widget.h"

#include <QPixmap>
#include <QWidget>

class QSvgRenderer;

namespace studio::widgets {

class ImageOutputView : public QWidget, public Describable {
    Q_OBJECT
public:
    explicit ImageOutputView(QWidget* parent = nullptr);

    // False when the data does not start as an image Qt reads (the view stays empty).
    bool setRaster(const QByteArray& base64, QSize metadataSize);
    bool setSvg(const QByteArray& svg, QSize metadataSize);
    // "light" or "dark" (metadata.needs_background); anything else paints no background.
    void setNeededBackground(const QString& tone);

    bool isSvg() const { return m_svg != nullptr; }
    // The size the image asks for, in logical pixels.
    QSize naturalSize() const { return m_natural; }
    // The size it is painted at in the current width.
    QSize shownSize() const { return shownSize(width()); }
    // The decoded raster (null for an SVG, or data that did not decode).
    const QPixmap& pixmap() const;

    QSize sizeHint() const override { return m_natural; }
    QString describe() const override; // for screen readers (Describable)

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QSize shownSize(int width) const;
    void fitHeight();

    mutable QByteArray m_encoded; // the raster's file bytes until it is decoded
    mutable QPixmap m_pixmap;     // decoded on first use
    QSvgRenderer* m_svg = nullptr;
    QSize m_natural;
    QColor m_background;
};

} // namespace studio::widgets
