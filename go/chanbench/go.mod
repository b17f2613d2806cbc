module rtt-suite/chanbench

go 1.21
