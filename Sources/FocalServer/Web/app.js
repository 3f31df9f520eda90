// Focal gallery
