// What `import Focal` shows: the pure core whole, and from the layers beneath only the types a
// library user names. No C type, no test hook, no package plumbing.
@_exported public import FocalCore

@_exported public import struct FocalDetection.InferenceSettings
@_exported public import enum FocalDetection.InferencePrecision
@_exported public import struct FocalDetection.CPUFeatures
@_exported public import enum FocalImaging.ImageFormat
@_exported public import struct FocalImaging.Flip
@_exported public import struct FocalImaging.EncodeOptions
@_exported public import struct FocalImaging.ImagingError
@_exported public import class FocalImaging.SourceImage
@_exported public import class FocalImaging.RenderedImage
@_exported public import enum FocalImaging.AtomicFile
@_exported public import protocol FocalImaging.Effect
@_exported public import struct FocalImaging.AppliedEffect
@_exported public import struct FocalImaging.NinePatch

@_exported public import enum FocalDetection.Accuracy
@_exported public import struct FocalDetection.DetectionError
@_exported public import struct FocalDetection.ModelDirectory
@_exported public import class FocalDetection.FaceDetector
@_exported public import class FocalDetection.ObjectDetector
@_exported public import struct FocalDetection.SaliencyDetector
@_exported public import struct FocalDetection.SubjectFile
@_exported public import enum FocalDetection.BackgroundModelLoads

@_exported public import class FocalRuntime.NativeWorkPool
@_exported public import struct FocalRuntime.Deadline
@_exported public import struct FocalRuntime.StepTiming

@_exported public import struct FocalFetch.NetworkSettings
@_exported public import struct FocalFetch.FetchError
@_exported public import struct FocalFetch.AddressPolicy
@_exported public import enum FocalFetch.AddressCategory
@_exported public import struct FocalFetch.AddressRefusal
@_exported public import struct FocalFetch.SourceAllowList
@_exported public import struct FocalFetch.IPAddress
@_exported public import struct FocalFetch.IPNetwork
@_exported public import struct FocalFetch.ObjectAddress
@_exported public import struct FocalFetch.ObjectStorageSettings
@_exported public import struct FocalFetch.S3Credentials
@_exported public import struct FocalFetch.StorageError
