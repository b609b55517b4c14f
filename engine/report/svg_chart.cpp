#include "engine/report/svg_chart.h"

#include "engine/plot/scale.h"
#include "engine/plot/ticks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace studio::report {
namespace {

constexpr double kLeft = 62, kRight = 16, kBottom = 46;
constexpr const char* kAxisColor = "#8a94a3";
constexpr const char* kGridColor = "#e3e7ed";
constexpr const char* kTextColor = "#3b4552";

std::string n1(double v) {
    return formatNumber(v, 1);
}

struct Plot {
    double x0, y0, x1, y1; // pixel rectangle: left, top, right, bottom
};

std::string open(const ChartFrame& f) {
    std::string s = "<svg class=\"chart\" viewBox=\"0 0 " + std::to_string(f.width) + " " +
                    std::to_string(f.height) + "\" width=\"" + std::to_string(f.width) +
                    "\" height=\"" + std::to_string(f.height) + "\" role=\"img\" aria-label=\"" +
                    htmlEscape(f.title) +
                    "\" font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\""
                    " font-size=\"11\">";
    if (!f.title.empty())
        s += "<text x=\"" + n1(kLeft) + "\" y=\"16\" font-size=\"13\" font-weight=\"600\" fill=\"" +
             std::string(kTextColor) + "\">" + htmlEscape(f.title) + "</text>";
    return s;
}

std::string text(double x, double y, const std::string& s, const char* anchor = "middle",
                 const std::string& extra = {}, const char* fill = kTextColor) {
    return "<text x=\"" + n1(x) + "\" y=\"" + n1(y) + "\" text-anchor=\"" + anchor + "\" fill=\"" +
           fill + "\"" + extra + ">" + htmlEscape(s) + "</text>";
}

std::string line(double x0, double y0, double x1, double y1, const std::string& color,
                 const std::string& extra = {}) {
    return "<line x1=\"" + n1(x0) + "\" y1=\"" + n1(y0) + "\" x2=\"" + n1(x1) + "\" y2=\"" +
           n1(y1) + "\" stroke=\"" + color + "\"" + extra + "/>";
}

std::string rect(double x, double y, double w, double h, const std::string& fill,
                 const std::string& extra = {}) {
    return "<rect x=\"" + n1(x) + "\" y=\"" + n1(y) + "\" width=\"" + n1(std::max(0.0, w)) +
           "\" height=\"" + n1(std::max(0.0, h)) + "\" fill=\"" + fill + "\"" + extra + "/>";
}

// Horizontal grid lines with labels on the left, and the rotated y label.
std::string yAxis(const ChartFrame& f, const Plot& p, const plot::TickSet& t,
                  const plot::LinearScale& y) {
    std::string s;
    const int decimals = plot::tickDecimals(t.step);
    for (double v : t.ticks) {
        const double py = y(v);
        s += line(p.x0, py, p.x1, py, kGridColor);
        s += text(p.x0 - 6, py + 4, formatNumber(v, decimals), "end");
    }
    s += line(p.x0, p.y0, p.x0, p.y1, kAxisColor);
    if (!f.yLabel.empty()) {
        const double cy = (p.y0 + p.y1) / 2;
        s += "<text transform=\"translate(14 " + n1(cy) +
             ") rotate(-90)\" text-anchor=\"middle\" fill=\"" + kTextColor + "\">" +
             htmlEscape(f.yLabel) + "</text>";
    }
    return s;
}

std::string xLabel(const ChartFrame& f, const Plot& p) {
    return f.xLabel.empty() ? std::string()
                            : text((p.x0 + p.x1) / 2, p.y1 + 36, f.xLabel, "middle");
}

// Tick marks and labels under a numeric x axis.
std::string xAxis(const ChartFrame& f, const Plot& p, const plot::TickSet& t,
                  const plot::LinearScale& x) {
    std::string s = line(p.x0, p.y1, p.x1, p.y1, kAxisColor);
    const int decimals = plot::tickDecimals(t.step);
    for (double v : t.ticks) {
        const double px = x(v);
        s += line(px, p.y1, px, p.y1 + 4, kAxisColor);
        s += text(px, p.y1 + 16, formatNumber(v, decimals));
    }
    return s + xLabel(f, p);
}

std::string noData(const Plot& p, const std::string& what = "no data recorded") {
    return text((p.x0 + p.x1) / 2, (p.y0 + p.y1) / 2, what, "middle", " font-style=\"italic\"");
}

// A legend row under the title; returns the height it takes.
double legend(std::string& s, const ChartFrame& f,
              const std::vector<std::pair<std::string, std::string>>& items, double top) {
    double x = kLeft, y = top;
    for (const auto& [name, color] : items) {
        const double w = 22 + 6.2 * static_cast<double>(name.size());
        if (x + w > f.width - kRight && x > kLeft) {
            x = kLeft;
            y += 15;
        }
        s += rect(x, y - 8, 10, 10, color, " rx=\"2\"");
        s += text(x + 14, y + 1, name, "start");
        x += w + 10;
    }
    return y - top + 15;
}

// Labels for categories under the plot, thinned to about maxLabels.
std::string categoryLabels(const Plot& p, const std::vector<std::string>& labels,
                           std::size_t maxLabels = 16) {
    std::string s;
    const std::size_t every = std::max<std::size_t>(1, (labels.size() + maxLabels - 1) / maxLabels);
    const double band =
        (p.x1 - p.x0) / static_cast<double>(std::max<std::size_t>(1, labels.size()));
    for (std::size_t i = 0; i < labels.size(); i += every)
        s += text(p.x0 + band * (static_cast<double>(i) + 0.5), p.y1 + 16, labels[i]);
    return s;
}

} // namespace

std::string paletteColor(std::size_t i) {
    static const std::array<const char*, 10> colors = {"#2f6fde", "#ef8a17", "#2aa876", "#d64550",
                                                       "#8a5cd1", "#8c6d4f", "#e377c2", "#6b7685",
                                                       "#b5b82a", "#17a2c4"};
    return colors[i % colors.size()];
}

std::string lineChart(const ChartFrame& f, const std::vector<LineSeries>& series,
                      std::optional<double> yMin, std::optional<double> yMax) {
    std::string s = open(f);
    double top = f.title.empty() ? 14 : 26;
    if (series.size() > 1) {
        std::vector<std::pair<std::string, std::string>> items;
        for (const auto& ls : series)
            items.emplace_back(ls.name, ls.color);
        top += legend(s, f, items, top + 10);
    }
    const Plot p{kLeft, top + 6, f.width - kRight, f.height - kBottom};
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (const auto& ls : series)
        for (const auto& pt : ls.points) {
            xlo = std::min(xlo, pt.x), xhi = std::max(xhi, pt.x);
            ylo = std::min(ylo, pt.y), yhi = std::max(yhi, pt.y);
        }
    if (!std::isfinite(xlo)) {
        s += rect(p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0, "#fafbfc");
        return s + noData(p) + "</svg>";
    }
    const plot::TickSet ty =
        plot::niceTicks(yMin.value_or(std::min(ylo, 0.0)), yMax.value_or(yhi), 5);
    const plot::TickSet tx = plot::niceTicks(xlo, xhi, 7);
    const plot::LinearScale x{tx.lo, tx.hi, p.x0, p.x1};
    const plot::LinearScale y{ty.lo, ty.hi, p.y1, p.y0};
    s += yAxis(f, p, ty, y) + xAxis(f, p, tx, x);
    const auto buckets = static_cast<std::size_t>(std::max(1.0, p.x1 - p.x0));
    for (const auto& ls : series) {
        if (ls.points.empty())
            continue;
        std::string pts;
        for (const auto& pt : decimateMinMax(ls.points, buckets))
            pts += n1(x(pt.x)) + "," + n1(y(std::clamp(pt.y, ty.lo, ty.hi))) + " ";
        s += "<polyline fill=\"none\" stroke=\"" + ls.color +
             "\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"" + pts + "\"/>";
    }
    return s + "</svg>";
}

std::string histogramChart(const ChartFrame& f, const Histogram& h, const std::string& color,
                           const std::vector<Marker>& markers) {
    std::string s = open(f);
    const Plot p{kLeft, f.title.empty() ? 20.0 : 34.0, f.width - kRight, f.height - kBottom};
    if (h.counts.empty() || h.maxCount() == 0) {
        s += rect(p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0, "#fafbfc");
        return s + noData(p) + "</svg>";
    }
    const plot::TickSet ty = plot::niceTicks(0, static_cast<double>(h.maxCount()), 5);
    plot::TickSet tx = plot::niceTicks(h.edges.front(), h.edges.back(), 7);
    const plot::LinearScale x{tx.lo, tx.hi, p.x0, p.x1};
    const plot::LinearScale y{ty.lo, ty.hi, p.y1, p.y0};
    s += yAxis(f, p, ty, y);
    for (std::size_t i = 0; i < h.counts.size(); ++i) {
        if (h.counts[i] == 0)
            continue;
        const double bx0 = x(h.edges[i]), bx1 = x(h.edges[i + 1]);
        const double by = y(static_cast<double>(h.counts[i]));
        s += rect(bx0 + 0.5, by, std::max(1.0, bx1 - bx0 - 1), p.y1 - by, color,
                  " fill-opacity=\"0.85\"");
    }
    s += xAxis(f, p, tx, x);
    double labelY = p.y0 + 10;
    for (const auto& m : markers) {
        const double px = x(m.x);
        if (px < p.x0 - 0.5 || px > p.x1 + 0.5)
            continue;
        s += line(px, p.y0, px, p.y1, "#3b4552", " stroke-dasharray=\"4 3\"");
        const bool nearRightEdge = px > p.x1 - 60; // keep the label inside the plot
        s += text(nearRightEdge ? px - 3 : px + 3, labelY, m.label + " " + formatNumber(m.x, 1),
                  nearRightEdge ? "end" : "start", " font-size=\"10\"");
        labelY += 12; // markers are often close together: stack their labels
    }
    if (h.outside > 0)
        s += text(p.x1, f.title.empty() ? 12.0 : 16.0,
                  std::to_string(h.outside) + " beyond the axis, not shown", "end",
                  " font-size=\"10\" font-style=\"italic\"");
    return s + "</svg>";
}

std::string boxPlotChart(const ChartFrame& f, const std::vector<BoxItem>& boxes,
                         std::optional<double> yMin, std::optional<double> yMax) {
    std::string s = open(f);
    const Plot p{kLeft, f.title.empty() ? 14.0 : 30.0, f.width - kRight, f.height - kBottom};
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& b : boxes)
        if (b.stats.count > 0)
            lo = std::min(lo, b.stats.p5), hi = std::max(hi, b.stats.p95);
    if (!std::isfinite(lo)) {
        s += rect(p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0, "#fafbfc");
        return s + noData(p) + "</svg>";
    }
    const plot::TickSet ty = plot::niceTicks(yMin.value_or(lo), yMax.value_or(hi), 5);
    const plot::LinearScale y{ty.lo, ty.hi, p.y1, p.y0};
    s += yAxis(f, p, ty, y) + line(p.x0, p.y1, p.x1, p.y1, kAxisColor);
    const double band = (p.x1 - p.x0) / static_cast<double>(boxes.size());
    const double half = std::min(28.0, band * 0.3);
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const auto& b = boxes[i];
        labels.push_back(b.label);
        const double cx = p.x0 + band * (static_cast<double>(i) + 0.5);
        if (b.stats.count == 0) {
            s += text(cx, (p.y0 + p.y1) / 2, "n/a", "middle", " font-style=\"italic\"");
            continue;
        }
        const auto& st = b.stats;
        s += line(cx, y(st.p5), cx, y(st.p95), b.color);
        s += line(cx - half / 2, y(st.p5), cx + half / 2, y(st.p5), b.color);
        s += line(cx - half / 2, y(st.p95), cx + half / 2, y(st.p95), b.color);
        s += rect(cx - half, y(st.p75), 2 * half, y(st.p25) - y(st.p75), b.color,
                  " fill-opacity=\"0.25\" stroke=\"" + b.color + "\"");
        s += line(cx - half, y(st.p50), cx + half, y(st.p50), b.color, " stroke-width=\"2.5\"");
    }
    s += categoryLabels(p, labels);
    return s + xLabel(f, p) + "</svg>";
}

std::string barChart(const ChartFrame& f, const std::vector<BarItem>& bars, int valueDecimals) {
    std::string s = open(f);
    const Plot p{kLeft, f.title.empty() ? 14.0 : 30.0, f.width - kRight, f.height - kBottom};
    double hi = 0;
    for (const auto& b : bars)
        if (std::isfinite(b.value))
            hi = std::max(hi, b.value);
    if (bars.empty()) {
        s += rect(p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0, "#fafbfc");
        return s + noData(p) + "</svg>";
    }
    const plot::TickSet ty = plot::niceTicks(0, hi, 5);
    const plot::LinearScale y{ty.lo, ty.hi, p.y1, p.y0};
    s += yAxis(f, p, ty, y) + line(p.x0, p.y1, p.x1, p.y1, kAxisColor);
    const double band = (p.x1 - p.x0) / static_cast<double>(bars.size());
    const double w = std::min(48.0, band * 0.7);
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < bars.size(); ++i) {
        labels.push_back(bars[i].label);
        if (!std::isfinite(bars[i].value))
            continue;
        const double cx = p.x0 + band * (static_cast<double>(i) + 0.5);
        const double by = y(bars[i].value);
        s += rect(cx - w / 2, by, w, p.y1 - by, bars[i].color, " rx=\"1.5\"");
        if (bars.size() <= 12)
            s += text(cx, by - 4, formatNumber(bars[i].value, valueDecimals), "middle",
                      " font-size=\"10\"");
    }
    s += categoryLabels(p, labels);
    return s + xLabel(f, p) + "</svg>";
}

namespace {

std::string slicePath(double cx, double cy, double r, const PieSlice& sl,
                      const std::string& color) {
    if (sl.fraction >= 0.9999)
        return "<circle cx=\"" + n1(cx) + "\" cy=\"" + n1(cy) + "\" r=\"" + n1(r) + "\" fill=\"" +
               color + "\" stroke=\"#fff\"/>";
    const XY a = polarPoint(cx, cy, r, sl.startAngle);
    const XY b = polarPoint(cx, cy, r, sl.endAngle);
    const char* large = sl.endAngle - sl.startAngle > std::numbers::pi ? "1" : "0";
    return "<path d=\"M" + n1(cx) + "," + n1(cy) + " L" + formatNumber(a.x, 2) + "," +
           formatNumber(a.y, 2) + " A" + n1(r) + "," + n1(r) + " 0 " + large + " 1 " +
           formatNumber(b.x, 2) + "," + formatNumber(b.y, 2) + " Z\" fill=\"" + color +
           "\" stroke=\"#fff\" stroke-width=\"1.5\"/>";
}

} // namespace

std::string pieChart(const ChartFrame& f, const std::vector<PieItem>& items,
                     const std::string& valueUnit, int valueDecimals) {
    std::string s = open(f);
    std::vector<double> values;
    for (const auto& it : items)
        values.push_back(it.value);
    const auto slices = pieSlices(values);
    const double top = f.title.empty() ? 8 : 26;
    const double r = std::max(10.0, std::min((f.height - top - 10) / 2, f.width * 0.2));
    const double cx = 16 + r, cy = top + 4 + r;
    bool any = false;
    for (std::size_t i = 0; i < slices.size(); ++i)
        if (slices[i].fraction > 0) {
            s += slicePath(cx, cy, r, slices[i], items[i].color);
            any = true;
        }
    if (!any) {
        s += "<circle cx=\"" + n1(cx) + "\" cy=\"" + n1(cy) + "\" r=\"" + n1(r) +
             "\" fill=\"#f0f2f5\"/>" +
             text(cx, cy + 4, "no data", "middle", " font-style=\"italic\"");
    }
    // Legend: the label, and under it the share and the value.
    const double lx = cx + r + 22;
    const double rowHeight = items.size() > 4 ? 27 : 32;
    double ly = top + 14;
    for (std::size_t i = 0; i < items.size(); ++i) {
        s += rect(lx, ly - 9, 11, 11, items[i].color, " rx=\"2\"");
        s += text(lx + 17, ly, items[i].label, "start", " font-weight=\"600\"");
        s += text(lx + 17, ly + 13,
                  formatPercent(slices[i].fraction) + " \u00b7 " +
                      formatNumber(items[i].value, valueDecimals) +
                      (valueUnit.empty() ? "" : " " + valueUnit),
                  "start", " fill-opacity=\"0.8\"");
        ly += rowHeight;
    }
    return s + "</svg>";
}

std::string stackedBar(const std::vector<PieItem>& items, const std::string& valueUnit, int width) {
    ChartFrame f;
    f.width = width;
    f.height = 74;
    std::string s = open(f);
    std::vector<double> values;
    for (const auto& it : items)
        values.push_back(it.value);
    const auto slices = pieSlices(values);
    const double x0 = 4, x1 = width - 4.0, y0 = 4, h = 30;
    s += rect(x0, y0, x1 - x0, h, "#f0f2f5", " rx=\"3\"");
    double x = x0;
    for (std::size_t i = 0; i < slices.size(); ++i) {
        const double w = slices[i].fraction * (x1 - x0);
        if (w <= 0)
            continue;
        s += rect(x, y0, w, h, items[i].color);
        const std::string share = formatPercent(slices[i].fraction);
        if (w > 7.0 * static_cast<double>(share.size()) + 8)
            s += text(x + w / 2, y0 + h / 2 + 4, share, "middle", " font-weight=\"600\"", "#fff");
        x += w;
    }
    double lx = x0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string label = items[i].label + ": " + formatNumber(items[i].value, 1) +
                                  (valueUnit.empty() ? "" : " " + valueUnit) + " (" +
                                  formatPercent(slices[i].fraction) + ")";
        s += rect(lx, y0 + h + 14, 11, 11, items[i].color, " rx=\"2\"");
        s += text(lx + 16, y0 + h + 24, label, "start");
        lx += 30 + 6.3 * static_cast<double>(label.size());
    }
    return s + "</svg>";
}

} // namespace studio::report
