import Foundation

extension Target {
    /// What the platform would refuse (errors) or cut or show otherwise (warnings) of a
    /// video of `seconds` at `width` x `height` written as `format`.
    public func check(seconds: Double, width: Int, height: Int, format: OutputFormat) -> (errors: [String], warnings: [String]) {
        let s = spec
        var errors: [String] = [], warnings: [String] = []
        let length = String(format: "%.2f s", seconds)
        if seconds > s.longest {
            errors.append("target \(rawValue): the video lasts \(length), longer than the \(Target.duration(s.longest)) it takes")
        } else if let cutsAfter = s.cutsAfter, seconds > cutsAfter {
            warnings.append("target \(rawValue): the video lasts \(length): \(s.cut)")
        }
        if seconds < s.shortest {
            errors.append("target \(rawValue): the video lasts \(length), shorter than the \(Target.duration(s.shortest)) it takes")
        } else if let least = s.recommendsAtLeast, seconds < least {
            warnings.append("target \(rawValue): the video lasts \(length), under the \(Target.duration(least)) recommended")
        }
        let upright = height > width
        let square = height == width
        if upright != s.upright, !(square && self == .youtubeShort) {
            let message = "target \(rawValue): canvas.size \(width)x\(height) is \(upright ? "upright" : square ? "square" : "landscape"); it expects \(s.size.width)x\(s.size.height)"
            if s.refusesOtherShape { errors.append(message + " (a landscape video is not a Short)") } else { warnings.append(message + " (shown with bars)") }
        } else if width * s.size.height != height * s.size.width, !(square && self == .youtubeShort) {
            warnings.append("target \(rawValue): canvas.size \(width)x\(height) is not \(s.size.width)x\(s.size.height)'s shape (shown cropped or with bars)")
        }
        if !format.isUpload {
            warnings.append("target \(rawValue): \(format.rawValue) output; the platform takes MP4 (or MOV) uploads")
        }
        return (errors, warnings)
    }
}
