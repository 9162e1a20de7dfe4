extension SpliceInfoSection {
    /// A splice_insert that leaves the network (a break starts) for program splice event `eventID`.
    ///
    /// - Parameters:
    ///   - eventID: splice_event_id.
    ///   - ptsTime: the splice time in 90 kHz ticks; `nil` splices immediately (splice_immediate_flag 1).
    ///   - duration: the break's duration in 90 kHz ticks, with auto_return; `nil` sends no break_duration.
    ///   - autoReturn: break_duration's auto_return flag.
    ///   - uniqueProgramID: unique_program_id.
    ///   - availNum: avail_num.
    ///   - availsExpected: avails_expected.
    public static func spliceInsertOut(
        eventID: UInt32, ptsTime: UInt64?, duration: UInt64?, autoReturn: Bool = true, uniqueProgramID: UInt16 = 0,
        availNum: UInt8 = 0, availsExpected: UInt8 = 0
    ) -> SpliceInfoSection {
        SpliceInfoSection(
            command: .spliceInsert(
                SpliceInsert(
                    spliceEventID: eventID,
                    splice: SpliceInsert.Splice(
                        outOfNetwork: true, spliceImmediate: ptsTime == nil,
                        mode: .program(ptsTime.map { SpliceTime(ptsTime: $0) }),
                        breakDuration: duration.map { BreakDuration(autoReturn: autoReturn, duration: $0) },
                        uniqueProgramID: uniqueProgramID, availNum: availNum, availsExpected: availsExpected))))
    }

    /// A splice_insert that returns to the network (a break ends) for program splice event `eventID`.
    ///
    /// - Parameters:
    ///   - eventID: splice_event_id.
    ///   - ptsTime: the return time in 90 kHz ticks; `nil` returns immediately.
    ///   - uniqueProgramID: unique_program_id.
    public static func spliceInsertIn(
        eventID: UInt32, ptsTime: UInt64?, uniqueProgramID: UInt16 = 0
    ) -> SpliceInfoSection {
        SpliceInfoSection(
            command: .spliceInsert(
                SpliceInsert(
                    spliceEventID: eventID,
                    splice: SpliceInsert.Splice(
                        outOfNetwork: false, spliceImmediate: ptsTime == nil,
                        mode: .program(ptsTime.map { SpliceTime(ptsTime: $0) }), uniqueProgramID: uniqueProgramID))))
    }

    /// A splice_insert cancelling event `eventID`.
    public static func spliceInsertCancel(eventID: UInt32) -> SpliceInfoSection {
        SpliceInfoSection(command: .spliceInsert(SpliceInsert(spliceEventID: eventID, splice: nil)))
    }

    /// A time_signal at `ptsTime` ticks (`nil`: time not specified) carrying `descriptors`.
    public static func timeSignal(ptsTime: UInt64?, descriptors: [SpliceDescriptor]) -> SpliceInfoSection {
        SpliceInfoSection(command: .timeSignal(SpliceTime(ptsTime: ptsTime)), descriptors: descriptors)
    }

    /// A time_signal at `ptsTime` ticks with one segmentation descriptor of `type` for the whole program,
    /// such as ``SegmentationType/breakStart`` or ``SegmentationType/providerPlacementOpportunityStart``.
    ///
    /// - Parameters:
    ///   - ptsTime: the splice time in 90 kHz ticks; `nil`: time not specified.
    ///   - segmentationEventID: segmentation_event_id.
    ///   - type: segmentation_type_id.
    ///   - duration: segmentation_duration in 90 kHz ticks; `nil` sends none (usual for ends).
    ///   - upid: segmentation_upid.
    ///   - segmentNum: segment_num.
    ///   - segmentsExpected: segments_expected.
    ///   - subSegment: for placement opportunity starts only.
    public static func timeSignal(
        ptsTime: UInt64?, segmentationEventID: UInt32, type: SegmentationType, duration: UInt64? = nil,
        upid: SegmentationUPID = .notUsed, segmentNum: UInt8 = 0, segmentsExpected: UInt8 = 0,
        subSegment: SegmentationDescriptor.SubSegment? = nil
    ) -> SpliceInfoSection {
        timeSignal(
            ptsTime: ptsTime,
            descriptors: [
                .segmentation(
                    SegmentationDescriptor(
                        segmentationEventID: segmentationEventID,
                        segmentation: SegmentationDescriptor.Segmentation(
                            type: type, segmentationDuration: duration, upid: upid, segmentNum: segmentNum,
                            segmentsExpected: segmentsExpected, subSegment: subSegment)))
            ])
    }
}
