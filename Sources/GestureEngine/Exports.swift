// The engine's API is made of the touch values (frames, touches, time, geometry: the TouchValues
// target, which the input side uses without the engine): whoever imports the engine gets them.
@_exported import TouchValues
