// <focal-img>: see README
