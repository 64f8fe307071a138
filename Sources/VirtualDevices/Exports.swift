// The devices' API is made of the kernel's input values (events and their codes, device
// descriptions, the EvdevValues target the input side shares): whoever writes to the kernel gets
// them.
@_exported import EvdevValues
