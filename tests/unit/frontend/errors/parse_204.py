raise E, "msg"
