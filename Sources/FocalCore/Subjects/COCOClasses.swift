/// The 80 classes of COCO as the object detector (YOLOv4-tiny, Darknet's `coco.names`) names them,
/// in its class order, spaces written `_` (`traffic_light`, `cell_phone`): each is a subject kind
/// (`SubjectKind(rawValue:)`), with a row in the kind table. People, cats and dogs count in a
/// default crop; the other 77 count when a request names them (`kinds(truck)`, `redact(blur,car)`).
public enum COCOClasses {
    /// The names, by class id.
    public static let names: [String] = [
        "person", "bicycle", "car", "motorbike", "aeroplane", "bus", "train", "truck", "boat", "traffic_light", "fire_hydrant",
        "stop_sign", "parking_meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra",
        "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee", "skis", "snowboard", "sports_ball", "kite",
        "baseball_bat", "baseball_glove", "skateboard", "surfboard", "tennis_racket", "bottle", "wine_glass", "cup", "fork",
        "knife", "spoon", "bowl", "banana", "apple", "sandwich", "orange", "broccoli", "carrot", "hot_dog", "pizza", "donut",
        "cake", "chair", "sofa", "pottedplant", "bed", "diningtable", "toilet", "tvmonitor", "laptop", "mouse", "remote",
        "keyboard", "cell_phone", "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors",
        "teddy_bear", "hair_drier", "toothbrush"
    ]

    /// Other words people use for a class, read as its name (`motorcycle` for `motorbike`).
    public static let synonyms: [String: String] = [
        "motorcycle": "motorbike", "airplane": "aeroplane", "plane": "aeroplane", "couch": "sofa", "potted_plant": "pottedplant",
        "plant": "pottedplant", "dining_table": "diningtable", "table": "diningtable", "tv": "tvmonitor", "television": "tvmonitor",
        "monitor": "tvmonitor", "phone": "cell_phone", "mobile_phone": "cell_phone", "hair_dryer": "hair_drier", "doughnut": "donut",
        "bike": "bicycle",
    ]

    /// The kinds, by class id.
    public static let kinds: [SubjectKind] = names.map { SubjectKind(rawValue: $0) }
}
