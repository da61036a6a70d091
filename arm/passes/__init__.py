"""Graph passes the Arm flow runs on edge programs before partitioning."""
