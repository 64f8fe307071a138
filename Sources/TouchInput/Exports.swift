// TouchInput's API is made of the kernel's input values (events and their codes, device
// descriptions, the EvdevValues target the output side shares): whoever reads panels gets them.
@_exported import EvdevValues
