import Focal
@testable import FocalServer
import FocalTestSupport
import HTTPTypes
import NIOCore
import Testing

/// Spellings and arguments from thumbor's, libthumbor's and imagor's own test URLs: each read with
/// its meaning there and written the one way Focal renders it (`ImageRequest.canonicalPath`),
/// where an unsafe URL is redirected; what thumbor 7.8 ignores is dropped, what it clamps is
/// clamped.
@Suite struct ThumborSpellingTests {
    /// (the filters as written, the canonical filters; "" for none).
    static let spellings: [(String, String)] = [
        // Another spelling of a value.
        ("fill(white)", "fill(ffffff)"), ("background_color(blue)", "background_color(0000ff)"),
        ("round_corner(40,60,green)", "round_corner(40|60,0,128,0)"), ("round_corner(50,255,0,0,1)", "round_corner(50,255,0,0,true)"),
        ("format(jpg)", "format(jpeg)"), ("proportion(0.60)", "proportion(0.6)"), ("autojpg(true)", "autojpg()"),
        ("sharpen(1,2)", "sharpen(1,2,false)"), ("rotate(-90)", "rotate(270)"), ("rotate(450)", "rotate(90)"),
        // A setting given twice: the last wins; an effect given twice applies twice.
        ("quality(50):quality(80)", "quality(80)"), ("blur(2):blur(3)", "blur(2):blur(3)"),
        // Arguments thumbor takes past Focal's range: clamped where the effect saturates.
        ("blur(500)", "blur(150)"), ("saturation(-50)", "saturation(-10)"), ("brightness(200)", "brightness(100)"),
        ("contrast(-150)", "contrast(-100)"), ("rgb(300,0,0)", "rgb(100,0,0)"), ("quality(0)", "quality(1)"), ("quality(101)", "quality(100)"),
        ("noise(200,123)", "noise(200,123)"), ("sharpen(5)", "sharpen(1,5,false)"), ("background_color(auto)", "background_color(auto)"),
        // What thumbor 7.8 reads and leaves as it is.
        ("blur(0)", ""), ("proportion(10000)", ""), ("proportion(0)", ""), ("proportion(-0.5)", ""), ("rotate(181)", ""),
        ("focal()", ""), ("focal(0x0:0x0)", ""), ("focal(garbage)", ""), ("format(asdf)", ""), ("gifv()", ""), ("gifv(webm)", ""),
        ("red_eye()", ""), ("quality(80):gifv()", "quality(80)"),
        // imagor's.
        ("strip_metadata()", "strip_metadata()"), ("to_colorspace()", ""), ("to_colorspace(sRGB)", ""),
        ("trim()", "trim(top-left)"), ("trim(10)", "trim(10,top-left)"), ("trim(bottom-right,5)", "trim(5,bottom-right)"),
        ("label(Hello%2C%20world,10,-10,24,white)", "label(Hello%2C%20world,10,-10,24,ffffff)"),
        ("label(Focal,left,bottom,20,red,0,SANS)", "label(Focal,0,bottom,20,ff0000)"), ("label(a%2cb,center,top,9,000,50,serif)", "label(a%2Cb,center,0,9,000000,50,serif)"),
        ("crop(10,20,200,150)", "output_crop(10,20,200,150)"), ("crop(0.10,0.1,0.8,0.80)", "output_crop(0.1,0.1,0.8,0.8)"),
    ]

    /// A decoded argument is written encoded in the canonical path, so that following the
    /// redirect reads back the same path (no second redirect, no loop).
    @Test func decodedArgumentsStayEncoded() throws {
        #expect(ImageRequest.pathEncoded("1, 2") == "1,%202")
        #expect(ImageRequest.pathEncoded("50%") == "50%25")
        #expect(ImageRequest.pathEncoded("[(0,0)]") == "[(0,0)]")
        for path in ["/unsafe/300x200/filters:focal(10,%2020)/a.jpg", "/unsafe/300x200/filters:focal(10,%2020):quality(8%30)/a.jpg"] {
            let first = try ImageRequest(ThumborURL(path: path))
            let again = try ImageRequest(ThumborURL(path: "/unsafe/" + first.canonicalPath))
            #expect(again.canonicalPath == first.canonicalPath, "\(path) → \(first.canonicalPath) → \(again.canonicalPath)")
        }
    }

    /// A focal region without a size: thumbor answers the whole image (the region only steers a
    /// crop); so does Focal, spelled without it. With a size it steers the crop.
    @Test func focalWithoutASize() throws {
        let plain = try ImageRequest(ThumborURL(path: "/unsafe/filters:focal(146x156:279x208)/a.jpg"))
        #expect(plain.canonicalPath == "a.jpg")
        #expect(plain.options.crop.override == nil)
        let sized = try ImageRequest(ThumborURL(path: "/unsafe/300x200/filters:focal(146x156:279x208)/a.jpg"))
        #expect(sized.canonicalPath == "300x200/filters:focal(146x156:279x208)/a.jpg")
        #expect(sized.options.crop.override == .region(PixelRect(x: 146, y: 156, width: 133, height: 52)))
    }

    /// A crop with no area (imagor's `trim:bottom-right/50x50:0x0`): ignored, as thumbor and imagor
    /// do; an unsafe URL is spelled without it, a signed one kept as written.
    @Test func emptyCropIsIgnored() throws {
        for crop in ["50x50:0x0", "10x10:10x40", "0x0:0x0"] {
            let unsafe = try ImageRequest(ThumborURL(path: "/unsafe/trim:bottom-right/\(crop)/300x200/a.jpg"))
            #expect(unsafe.canonicalPath == "trim:bottom-right/300x200/a.jpg")
            #expect(unsafe.options.crop.bounds == nil)
            let signed = try ThumborURL(path: "/c2lnbmVk/\(crop)/300x200/a.jpg")
            #expect(signed.manualCrop == nil)
            #expect(signed.canonicalOptions == [crop, "300x200"])
        }
        let kept = try ImageRequest(ThumborURL(path: "/unsafe/10x20:110x220/a.jpg"))
        #expect(kept.options.crop.bounds == PixelRect(x: 10, y: 20, width: 100, height: 200))
    }

    @Test(arguments: spellings)
    func spelling(_ written: String, _ canonical: String) throws {
        let request = try ImageRequest(ThumborURL(path: "/unsafe/300x200/filters:\(written)/a.jpg"))
        #expect(request.canonicalPath == "300x200/" + (canonical.isEmpty ? "" : "filters:\(canonical)/") + "a.jpg")
        // The canonical spelling reads back as itself, with the same options.
        let again = try ImageRequest(ThumborURL(path: "/unsafe/" + request.canonicalPath))
        #expect(again.canonicalPath == request.canonicalPath)
        #expect(again.options == request.options)
    }

    /// Through the service: each spelling is a 308 to its canonical URL, which answers an image;
    /// two blurs are not one.
    @Test func throughTheService() async throws {
        try await withServer { client in
            for (written, canonical) in [("blur(500)", "filters:blur(150)/"), ("gifv()", ""), ("round_corner(40,60,green)", "filters:round_corner(40|60,0,128,0)/")] {
                try await client.execute(uri: "/unsafe/120x80/filters:\(written)/astronaut.png", method: .get) { response in
                    #expect(response.status == .permanentRedirect, "\(written)")
                    #expect(response.headers[.location] == "/unsafe/120x80/\(canonical)astronaut.png")
                }
                try await client.execute(uri: "/unsafe/120x80/\(canonical)astronaut.png", method: .get) { response in
                    #expect(response.status == .ok, "\(canonical): \(String(buffer: response.body))")
                    #expect(response.imageSize == PixelSize(width: 120, height: 80))
                }
            }
            let once = try await client.execute(uri: "/unsafe/120x80/filters:blur(3):format(png)/astronaut.png", method: .get) { $0.data }
            let twice = try await client.execute(uri: "/unsafe/120x80/filters:blur(3):blur(3):format(png)/astronaut.png", method: .get) { $0.data }
            #expect(once != twice, "a blur given twice blurs twice")
        }
    }

    /// thumbor's HEIF and imagor's TIFF and JPEG XL outputs, where this libvips writes them, listed
    /// in `/v1/config`; a format thumbor does not know keeps the source's (the filter is dropped).
    @Test func formatsThumborAndImagorWrite() async throws {
        try await withServer { client in
            let listed = try await client.execute(uri: "/v1/config", method: .get) { $0.json?["formats"] as? [String] }
            #expect(listed == ["jpeg", "png", "webp", "avif", "gif", "heic", "tiff", "jxl"], "\(String(describing: listed))")
            for (name, type, read) in [("heic", "image/heic", "heif"), ("heif", "image/heic", "heif"), ("tiff", "image/tiff", "tiff"), ("jxl", "image/jxl", "jxl")] {
                let uri = "/unsafe/120x80/filters:format(\(name))/astronaut.png"
                let (status, location) = try await client.execute(uri: uri, method: .get) { ($0.status, $0.headers[.location]) }
                let canonical = status == .permanentRedirect ? try #require(location) : uri
                try await client.execute(uri: canonical, method: .get) { response in
                    #expect(response.status == .ok, "\(name): \(String(buffer: response.body))")
                    #expect(response.headers[.contentType] == type)
                    let decoded = try OutputDecoding.open(response.data)
                    #expect(decoded.format == read && decoded.image.size == PixelSize(width: 120, height: 80), "\(name)")
                }
            }
            try await client.execute(uri: "/unsafe/120x80/filters:format(asdf)/astronaut.png", method: .get) { response in
                #expect(response.headers[.location] == "/unsafe/120x80/astronaut.png")
            }
        }
    }

    /// imagor's `stretch/` and paddings after the size (`/fit-in/200x150/10x20:30x40/`): the
    /// image made for what the paddings leave, the rest filled (white, or fill(…)'s colour).
    @Test func imagorStretchAndPaddings() async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/stretch/100x300/astronaut.png", method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                #expect(response.imageSize == PixelSize(width: 100, height: 300))
            }
            let (padded, _) = try await FilterRouteTests.get(client, "/unsafe/fit-in/200x150/10x20:30x40/filters:format(png)/astronaut.png")
            let pixels = try FilterRouteTests.pixels(padded)
            #expect(pixels.size == PixelSize(width: 200, height: 150))
            // The square photo fits the 160 x 90 the paddings leave: 90 x 90, in the middle of that
            // (columns 45 to 134, rows 10 to 99); white around.
            func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels.bytes[(3 * (y * 200 + x))..<(3 * (y * 200 + x) + 3)]) }
            #expect(pixel(5, 75) == [255, 255, 255] && pixel(190, 75) == [255, 255, 255] && pixel(100, 5) == [255, 255, 255] && pixel(100, 140) == [255, 255, 255])
            #expect(pixel(90, 55) != [255, 255, 255], "the photo is inside")
            let (red, _) = try await FilterRouteTests.get(client, "/unsafe/fit-in/200x150/10x20/filters:fill(ff0000):format(png)/astronaut.png")
            #expect(Array(try FilterRouteTests.pixels(red).bytes.prefix(3)) == [255, 0, 0])
            try await client.execute(uri: "/unsafe/fit-in/200x150/100x20:100x40/astronaut.png", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/unsafe/fit-in/200x/10x20/astronaut.png", method: .get) { #expect($0.status == .badRequest) }
        }
    }

    /// imagor's crop() after the resize (pixels or fractions), trim() as a filter, and a colour
    /// space other than sRGB refused.
    @Test func imagorCropTrimAndColourSpace() async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/300x200/filters:output_crop(10,20,200,150)/astronaut.png", method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                #expect(response.imageSize == PixelSize(width: 200, height: 150))
            }
            try await client.execute(uri: "/unsafe/300x200/filters:output_crop(0.1,0.1,0.5,0.5)/astronaut.png", method: .get) { response in
                #expect(response.imageSize == PixelSize(width: 150, height: 100))
            }
            // Past the output: cut at its edge.
            try await client.execute(uri: "/unsafe/300x200/filters:output_crop(250,150,200,150)/astronaut.png", method: .get) { response in
                #expect(response.imageSize == PixelSize(width: 50, height: 50))
            }
            try await client.execute(uri: "/unsafe/300x200/filters:trim(10,top-left)/astronaut.png", method: .get) { #expect($0.status == .ok) }
            for bad in ["crop(0,0,0,10)", "crop(1,2,3)", "to_colorspace(cmyk)", "trim(1,2,3)"] {
                try await client.execute(uri: "/unsafe/300x200/filters:\(bad)/astronaut.png", method: .get) { response in
                    #expect(response.status == .badRequest, "\(bad)")
                }
            }
        }
    }
}
