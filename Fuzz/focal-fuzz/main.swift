import CFocalFuzz
import Foundation

// libFuzzer parses the command line (-max_total_time, -rss_limit_mb, corpus folders, ...).
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzOne(bytes, count) })
