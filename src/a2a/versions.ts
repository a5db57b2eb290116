/**
 * The A2A protocol versions one server speaks side by side (docs/architecture.md "Protocol
 * versions"). Tasks know no version; a push config remembers the one it was registered in, so
 * its deliveries are written in the shape its registrant reads.
 */
/** An A2A protocol version this server speaks. */
export type ProtocolVersion = '0.3' | '1.0';
