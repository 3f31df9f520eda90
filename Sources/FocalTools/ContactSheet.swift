public import Foundation
public import Focal
import FocalCore
import FocalImaging

/// A picture for judging crops by eye: one row per photo — the photo with its subjects drawn,
/// then for each aspect the centre crop and Focal's crop side by side, labelled.
public struct ContactSheet: Sendable {
    /// The aspects shown, in order; default 1:1, 16:9, 9:16, 4:5, 3:2.
    public var aspects: [(Int, Int)]
    /// The height of every row in pixels; default 180. Kept within `rowHeights` when drawn.
    public var rowHeight: Int
    /// Crop options for Focal's crops; default `.default`.
    public var options: CropOptions

    private static let gap = 8, labelHeight = 22
    /// The widest cell, in pixels (an aspect of 100:1 would otherwise ask for a row of 18 000).
    private static let maxCellWidth = 8192
    private static let background = RGB(32, 32, 32)
    /// The row heights drawn, 32...1024: a library caller's value is kept inside before any
    /// arithmetic, and `focal sheet --row-height` refuses one outside.
    public static let rowHeights = 32...1024

    /// Creates a sheet layout; every parameter defaults to the value documented on its property.
    public init(aspects: [(Int, Int)] = [(1, 1), (16, 9), (9, 16), (4, 5), (3, 2)], rowHeight: Int = 180, options: CropOptions = .default) {
        self.aspects = aspects
        self.rowHeight = rowHeight
        self.options = options
    }

    /// Renders the sheet for analysed images as PNG.
    /// - Throws: `ImagingError` or `PlanningError`.
    public func png(_ analyses: [(name: String, analysis: Analysis)]) throws -> Data {
        let rows = try analyses.map { try row(name: $0.name, analysis: $0.analysis) }
        let width = (rows.map(\.width).max() ?? 1) + 2 * Self.gap
        let height = rows.reduce(Self.gap) { $0 + $1.height + Self.gap }
        var canvas = Canvas(width: width, height: height, color: Self.background)
        var y = Self.gap
        for row in rows {
            canvas.draw(row, x: Self.gap, y: y)
            y += row.height + Self.gap
        }
        return try RenderedImage(pixels: canvas.pixels).encode(.png)
    }

    private func row(name: String, analysis: Analysis) throws -> PixelBuffer {
        let h = min(max(rowHeight, Self.rowHeights.lowerBound), Self.rowHeights.upperBound)
        var cells: [(PixelBuffer, String, RGB)] = []
        let overlay = try DebugOverlay(analysis: analysis, plan: nil).pixels(longSide: 2 * h)
        let overlayWidth = Int(rounding: Double(overlay.width) * Double(h) / Double(overlay.height), within: 1...Self.maxCellWidth)
        cells.append((try RenderedImage(pixels: overlay).resized(to: PixelSize(width: overlayWidth, height: h)).pixels(),
                      (name as NSString).lastPathComponent, RGB(230, 230, 230)))
        var centre = options
        centre.detect = false
        for (a, b) in aspects {
            let size = PixelSize(width: Int(rounding: Double(h) * Double(a) / Double(b), within: 1...Self.maxCellWidth), height: h)
            let target = CropTarget.aspect(width: a, height: b)
            let plain = try analysis.plan(target, options: centre)
            let focal = try analysis.plan(target, options: options)
            cells.append((try analysis.image.render(crop: plain.crop, to: size).pixels(), "\(a):\(b) centre", RGB(180, 180, 180)))
            cells.append((try analysis.image.render(crop: focal.crop, to: size).pixels(), "\(a):\(b) \(focal.strategy.rawValue)", RGB(90, 230, 120)))
        }
        let width = cells.reduce(0) { $0 + $1.0.width } + Self.gap * (cells.count - 1)
        var canvas = Canvas(width: width, height: h + Self.labelHeight, color: Self.background)
        var x = 0
        for (index, (image, label, color)) in cells.enumerated() {
            // Each aspect's pair sits closer together than the pairs sit to each other.
            canvas.draw(image, x: x, y: Self.labelHeight)
            canvas.label(label, x: x, y: 2, color: color, size: 13)
            x += image.width + (index % 2 == 1 ? Self.gap / 2 : Self.gap * 2)
        }
        return canvas.pixels
    }
}
