"""Friends and private messages: requests, friendships, blocks, one-to-one messages
(seed 000, "Private Messaging"; table invitations and reports of messages are the tables
package's, which builds on this one)."""
