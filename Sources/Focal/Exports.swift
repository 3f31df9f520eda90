@_exported import FocalCore
@_exported import FocalDetection
@_exported import FocalImaging
